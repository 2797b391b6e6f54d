package dev.lockstarter.store.dynamodb;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.LockOperationsContractTests;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;

/**
 * {@link LockOperationsContractTests} on the {@link DynamoDbLockStore}, against DynamoDB
 * Local. Waiters poll (the store has no release notifications).
 */
class DynamoDbLockOperationsContractTests extends LockOperationsContractTests {

	@RegisterExtension
	@Order(1)
	static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedDynamoDbStore dynamoDbStore = new SharedDynamoDbStore(dynamoDb::endpoint, "operations-locks");

	@Override
	protected LockStore createStore() {
		return dynamoDbStore.store();
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

}
