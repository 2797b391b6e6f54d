package dev.lockstarter.store.zookeeper;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.ReactiveLockOperationsContractTests;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsembleExtension;

/**
 * {@link ReactiveLockOperationsContractTests} on the {@link ZooKeeperLockStore}, against
 * a real ensemble of three servers: a store without reactive operations, called on the
 * bounded elastic scheduler.
 */
class ZooKeeperReactiveLockOperationsContractTests extends ReactiveLockOperationsContractTests {

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
