package dev.lockstarter.store.jdbc;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.integration.LockOperationsLockRegistry;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.adapter.AdapterContractTests;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * {@link AdapterContractTests} on the shared {@link JdbcLockStore} of a test class: the
 * Spring Integration, ShedLock and {@code Lock} adapters.
 */
abstract class JdbcAdapterContractTests extends AdapterContractTests {

	/**
	 * Return the shared store of the test class.
	 * @return the registered extension
	 */
	abstract SharedJdbcStore jdbc();

	@Override
	protected LockStore createStore() {
		return jdbc().store();
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
