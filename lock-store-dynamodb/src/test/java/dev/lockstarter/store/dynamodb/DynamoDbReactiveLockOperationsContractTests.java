package dev.lockstarter.store.dynamodb;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.ReactiveLockOperationsContractTests;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;

/**
 * {@link ReactiveLockOperationsContractTests} on the {@link DynamoDbLockStore}, against
 * DynamoDB Local: a store without reactive operations, called on the bounded elastic
 * scheduler.
 */
class DynamoDbReactiveLockOperationsContractTests extends ReactiveLockOperationsContractTests {

	@RegisterExtension
	@Order(1)
	static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedDynamoDbStore dynamoDbStore = new SharedDynamoDbStore(dynamoDb::endpoint,
			"reactive-operations-locks");

	@Override
	protected LockStore createStore() {
		return dynamoDbStore.store();
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

}
