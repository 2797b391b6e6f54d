package dev.lockstarter.store.dynamodb;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.integration.LockOperationsLockRegistry;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.adapter.AdapterContractTests;
import dev.lockstarter.test.adapter.LostUpdateChecker;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * {@link AdapterContractTests} on the {@link DynamoDbLockStore}, against DynamoDB Local:
 * the Spring Integration, ShedLock and {@code Lock} adapters.
 */
class DynamoDbAdapterContractTests extends AdapterContractTests {

	@RegisterExtension
	@Order(1)
	static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedDynamoDbStore dynamoDbStore = new SharedDynamoDbStore(dynamoDb::endpoint, "adapter-locks");

	@Override
	protected LockStore createStore() {
		return dynamoDbStore.store();
	}

	@Override
	protected LostUpdateChecker lostUpdateChecker() {
		// DynamoDB Local, in this JVM, answers a few hundred requests a second on two
		// cores, and every attempt that finds a key held costs one
		return new LostUpdateChecker().threads(8).sectionsPerThread(10);
	}

	@Override
	protected RenewableLockRegistry<DistributedLock> createLockRegistry(LockOperations operations,
			LockOptions options) {
		return new LockOperationsLockRegistry(operations, options);
	}

	@Override
	protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
		return new LockOperationsLockProvider(operations);
	}

}
