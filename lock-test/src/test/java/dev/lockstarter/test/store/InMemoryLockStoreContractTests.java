package dev.lockstarter.test.store;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.test.contract.LockStoreContractTests;

/**
 * {@link LockStoreContractTests} for {@link InMemoryLockStore}.
 */
class InMemoryLockStoreContractTests extends LockStoreContractTests {

	@Override
	protected LockStore createStore() {
		return new InMemoryLockStore();
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

}
