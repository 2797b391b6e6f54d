package dev.lockstarter.autoconfigure;

import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import dev.lockstarter.store.dynamodb.DynamoDbLockStore;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;
import dev.lockstarter.test.fault.FaultProxy;

/**
 * {@link StoreFailureIntegrationTests} with the DynamoDB store, against DynamoDB Local.
 */
class DynamoDbStoreFailureIntegrationTests extends StoreFailureIntegrationTests {

	@RegisterExtension
	static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

	private static final String ACCESS_KEY_PROPERTY = "aws.accessKeyId";

	private static final String SECRET_KEY_PROPERTY = "aws.secretAccessKey";

	private static DynamoDbClient client;

	@BeforeAll
	static void setPlaceholderAwsCredentials() {
		// The AWS SDK's default credentials chain reads these; DynamoDB Local accepts any
		System.setProperty(ACCESS_KEY_PROPERTY, "local");
		System.setProperty(SECRET_KEY_PROPERTY, "local");
	}

	@AfterAll
	static void closeClient() {
		System.clearProperty(ACCESS_KEY_PROPERTY);
		System.clearProperty(SECRET_KEY_PROPERTY);
		if (client != null) {
			client.close();
		}
	}

	@Override
	protected String serverHost() {
		return dynamoDb.server().host();
	}

	@Override
	protected int serverPort() {
		return dynamoDb.server().port();
	}

	@Override
	protected String[] storeProperties(FaultProxy proxy) {
		return new String[] { "lock.store=dynamodb",
				"lock.dynamodb.endpoint=http://" + proxy.host() + ":" + proxy.port(), "lock.dynamodb.region=us-east-1",
				"lock.dynamodb.timeout=1s", "lock.dynamodb.create-table=true" };
	}

	@Override
	protected boolean isHeld(String storeKey) {
		if (client == null) {
			client = dynamoDb.server().createClient();
		}
		Map<String, AttributeValue> item = client
			.getItem((request) -> request.tableName("locks")
				.key(Map.of(DynamoDbLockStore.PARTITION_KEY, AttributeValue.fromS(storeKey)))
				.consistentRead(true))
			.item();
		// An owner is held until it releases or is taken over: the item holds no expiry
		// time
		return item != null && item.containsKey(DynamoDbLockStore.OWNER);
	}

}
