package dev.lockstarter.test.store;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.test.contract.ReactiveLockOperationsContractTests;

/**
 * {@link ReactiveLockOperationsContractTests} on the {@link InMemoryLockStore}, whose
 * reactive operations answer on the subscriber's thread.
 */
class InMemoryReactiveLockOperationsContractTests extends ReactiveLockOperationsContractTests {

	@Override
	protected LockStore createStore() {
		return new InMemoryLockStore();
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

}
