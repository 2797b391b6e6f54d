package dev.lockstarter.test.store;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.test.contract.LockOperationsContractTests;

/**
 * {@link LockOperationsContractTests} on the {@link InMemoryLockStore}.
 */
class InMemoryLockOperationsContractTests extends LockOperationsContractTests {

	@Override
	protected LockStore createStore() {
		return new InMemoryLockStore();
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

}
