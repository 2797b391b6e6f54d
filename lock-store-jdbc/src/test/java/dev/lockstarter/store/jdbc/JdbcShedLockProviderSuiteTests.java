package dev.lockstarter.store.jdbc;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.adapter.ShedLockProviderSuiteTests;

/**
 * ShedLock's own provider suite ({@link ShedLockProviderSuiteTests}) on the
 * {@link LockOperationsLockProvider} over the shared {@link JdbcLockStore} of a test
 * class.
 */
abstract class JdbcShedLockProviderSuiteTests extends ShedLockProviderSuiteTests {

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
	protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
		return new LockOperationsLockProvider(operations);
	}

}
