package dev.lockstarter.store.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
