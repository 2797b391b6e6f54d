package dev.lockstarter.store.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
	static final ZooKeeperEnsembleExtension ensemble = new ZooKeeperEnsembleExtension();

	private static CuratorFramework client;

	private static ZooKeeperLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		client = TestClients.start(ensemble.connectString());
		sharedStore = new ZooKeeperLockStore(client);
	}

	@AfterAll
	static void closeClient() {
		if (sharedStore != null) {
			sharedStore.close();
		}
		if (client != null) {
			client.close();
		}
	}

	@Override
	protected LockStore createStore() {
		return sharedStore;
	}

}
