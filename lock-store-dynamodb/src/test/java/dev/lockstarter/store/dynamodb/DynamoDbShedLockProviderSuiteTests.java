package dev.lockstarter.store.dynamodb;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.adapter.ShedLockProviderSuiteTests;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;

/**
 * ShedLock's own provider suite ({@link ShedLockProviderSuiteTests}) on the
 * {@link LockOperationsLockProvider} over the {@link DynamoDbLockStore}, against DynamoDB
 * Local.
 */
class DynamoDbShedLockProviderSuiteTests extends ShedLockProviderSuiteTests {

	@RegisterExtension
	@Order(1)
	static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedDynamoDbStore dynamoDbStore = new SharedDynamoDbStore(dynamoDb::endpoint,
			"shedlock-suite-locks");

	@Override
	protected LockStore createStore() {
		return dynamoDbStore.store();
	}

	@Override
	protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
		return new LockOperationsLockProvider(operations);
	}

}
