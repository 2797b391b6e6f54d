package dev.lockstarter.shedlock;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.test.adapter.ShedLockProviderSuiteTests;

/**
 * ShedLock's own provider suite ({@link ShedLockProviderSuiteTests}) on the
 * {@link LockOperationsLockProvider} over a new {@link InMemoryLockStore} for each test.
 */
class InMemoryShedLockProviderSuiteTests extends ShedLockProviderSuiteTests {

	@Override
	protected LockStore createStore() {
		return new InMemoryLockStore();
	}

	@Override
	protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
		return new LockOperationsLockProvider(operations);
	}

}
