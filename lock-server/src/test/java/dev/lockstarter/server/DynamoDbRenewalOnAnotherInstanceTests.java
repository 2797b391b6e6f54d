package dev.lockstarter.server;

import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.dynamodb.DynamoDbLocalServer;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;

/**
 * {@link RenewalOnAnotherInstanceTests} on DynamoDB Local, with the store's default
 * expiry, by observed silence.
 */
class DynamoDbRenewalOnAnotherInstanceTests extends RenewalOnAnotherInstanceTests {

	@RegisterExtension
	static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

	/** The SDK's credentials for DynamoDB Local, which checks none. */
	@BeforeAll
	static void setCredentials() {
		System.setProperty("aws.accessKeyId", "local");
		System.setProperty("aws.secretAccessKey", "local");
	}

	@AfterAll
	static void clearCredentials() {
		System.clearProperty("aws.accessKeyId");
		System.clearProperty("aws.secretAccessKey");
	}

	@Override
	protected List<String> storeProperties() {
		return List.of("lock.store=dynamodb", "lock.dynamodb.endpoint=" + dynamoDb.endpoint(),
				"lock.dynamodb.region=" + DynamoDbLocalServer.REGION, "lock.dynamodb.create-table=true");
	}

}
