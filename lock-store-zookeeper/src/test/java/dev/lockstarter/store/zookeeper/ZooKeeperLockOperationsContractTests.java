package dev.lockstarter.store.zookeeper;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.LockOperationsContractTests;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsembleExtension;

/**
 * {@link LockOperationsContractTests} on the {@link ZooKeeperLockStore}, against a real
 * ensemble of three servers: waiters are woken by the recursive watch, with polling as
 * the safety net.
 */
class ZooKeeperLockOperationsContractTests extends LockOperationsContractTests {

	@RegisterExtension
	@Order(1)
	static final ZooKeeperEnsembleExtension ensemble = new ZooKeeperEnsembleExtension();

	@RegisterExtension
	@Order(2)
	static final SharedZooKeeperStore shared = new SharedZooKeeperStore(ensemble::connectString);

	@Override
	protected LockStore createStore() {
		return shared.store();
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

}
