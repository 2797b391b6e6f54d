package dev.lockstarter.store.dynamodb;

import java.time.Duration;

import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbWaiter;

import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.PARTITION_KEY;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.TTL;

/**
 * The creation of the DynamoDB store's table: on-demand capacity, a string partition key
 * named {@value DynamoDbLockStore#PARTITION_KEY}, and Time to Live on
 * {@value DynamoDbLockStore#TTL}, each step with timeouts of its own, longer than those
 * of lock operations.
 */
final class DynamoDbTable {

	private static final Duration TABLE_OPERATION_TIMEOUT = Duration.ofSeconds(30);

	private static final Duration TABLE_POLL_DELAY = Duration.ofMillis(500);

	private static final Duration TABLE_WAIT_TIMEOUT = Duration.ofMinutes(2);

	private DynamoDbTable() {
	}

	/**
	 * Create the table if it does not exist, wait until it is active, then enable Time to
	 * Live.
	 * @param calls the store's calls, on its table
	 */
	static void create(DynamoDbCalls calls) {
		DynamoDbClient client = calls.client();
		String tableName = calls.tableName();
		// Table operations may take longer than the client's timeout, tuned for lock
		// operations
		AwsRequestOverrideConfiguration patient = AwsRequestOverrideConfiguration.builder()
			.apiCallTimeout(TABLE_OPERATION_TIMEOUT)
			.build();
		calls.call("create the table", "", () -> {
			try {
				client.createTable((table) -> table.tableName(tableName)
					.attributeDefinitions(AttributeDefinition.builder()
						.attributeName(PARTITION_KEY)
						.attributeType(ScalarAttributeType.S)
						.build())
					.keySchema(KeySchemaElement.builder().attributeName(PARTITION_KEY).keyType(KeyType.HASH).build())
					.billingMode(BillingMode.PAY_PER_REQUEST)
					.overrideConfiguration(patient));
			}
			catch (ResourceInUseException ex) {
				// Exists already (or is being created)
			}
			try (DynamoDbWaiter waiter = DynamoDbWaiter.builder()
				.client(client)
				.overrideConfiguration(
						(config) -> config.backoffStrategyV2(BackoffStrategy.fixedDelay(TABLE_POLL_DELAY))
							.waitTimeout(TABLE_WAIT_TIMEOUT))
				.build()) {
				waiter.waitUntilTableExists((table) -> table.tableName(tableName).overrideConfiguration(patient));
			}
			TimeToLiveDescription timeToLive = client
				.describeTimeToLive((ttl) -> ttl.tableName(tableName).overrideConfiguration(patient))
				.timeToLiveDescription();
			if (timeToLive == null || !TTL.equals(timeToLive.attributeName())) {
				client.updateTimeToLive((ttl) -> ttl.tableName(tableName)
					.timeToLiveSpecification((spec) -> spec.attributeName(TTL).enabled(true))
					.overrideConfiguration(patient));
			}
			return null;
		});
	}

}
