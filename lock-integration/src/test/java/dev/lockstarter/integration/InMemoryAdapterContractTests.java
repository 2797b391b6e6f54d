package dev.lockstarter.integration;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.test.adapter.AdapterContractTests;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * {@link AdapterContractTests} on the {@link InMemoryLockStore}: the Spring Integration,
 * ShedLock and {@code Lock} adapters. It lives here rather than in lock-core, which the
 * adapters depend on, or in lock-test, on which their tests depend.
 */
class InMemoryAdapterContractTests extends AdapterContractTests {

	@Override
	protected LockStore createStore() {
		return new InMemoryLockStore();
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
