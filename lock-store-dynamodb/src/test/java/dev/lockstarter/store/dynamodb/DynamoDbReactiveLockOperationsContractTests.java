package dev.lockstarter.store.dynamodb;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.ReactiveLockOperationsContractTests;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServer;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;

/**
 * {@link ReactiveLockOperationsContractTests} on the {@link DynamoDbLockStore}, against
 * DynamoDB Local: a store without reactive operations, called on the bounded elastic
 * scheduler.
 */
class DynamoDbReactiveLockOperationsContractTests extends ReactiveLockOperationsContractTests {

	@RegisterExtension
	static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

	private static DynamoDbClient client;

	private static DynamoDbLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		client = DynamoDbClient.builder()
			.endpointOverride(dynamoDb.endpoint())
			.region(Region.of(DynamoDbLocalServer.REGION))
			.credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
			.overrideConfiguration((config) -> config.apiCallTimeout(Duration.ofSeconds(5)))
			.build();
		sharedStore = new DynamoDbLockStore(client, "reactive-operations-locks");
		sharedStore.createTableIfNotExists();
	}

	@AfterAll
	static void closeClient() {
		if (client != null) {
			client.close();
		}
	}

	@Override
	protected LockStore createStore() {
		return sharedStore;
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

}
