package dev.lockstarter.test.store;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.ReactiveLockOperationsContractTests;

/**
 * {@link ReactiveLockOperationsContractTests} on a store with no optional ability, the
 * {@link FourMethodLockStore}: the reactive template reaches it on the bounded elastic
 * scheduler and polls while waiting, and, as the store keeps no results, the result
 * operations signal that they are unsupported.
 */
class FourMethodReactiveLockOperationsContractTests extends ReactiveLockOperationsContractTests {

	@Override
	protected LockStore createStore() {
		return new FourMethodLockStore();
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

}
