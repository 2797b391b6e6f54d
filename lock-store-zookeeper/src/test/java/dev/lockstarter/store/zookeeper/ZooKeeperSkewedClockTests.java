package dev.lockstarter.store.zookeeper;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.SkewedClockContractTests;
import dev.lockstarter.test.zookeeper.ZooKeeperServerExtension;

/**
 * {@link SkewedClockContractTests} on one ZooKeeper server, each store on its own Curator
 * client. Persistent lock nodes have no server-side expiry, so a crashed holder's key is
 * freed by observed silence alone.
 */
class ZooKeeperSkewedClockTests extends SkewedClockContractTests {

	@RegisterExtension
	static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();

	private final List<CuratorFramework> clients = new ArrayList<>();

	private final List<ZooKeeperLockStore> stores = new ArrayList<>();

	@Override
	protected LockStore createStore(Clock wallClock) {
		CuratorFramework client = TestClients.start(zooKeeper.connectString());
		this.clients.add(client);
		ZooKeeperLockStore store = new ZooKeeperLockStore(client, ZooKeeperLockStore.DEFAULT_BASE_PATH,
				TestClients.TIMEOUT, wallClock);
		this.stores.add(store);
		return store;
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

	@AfterAll
	void closeStores() {
		this.stores.forEach(ZooKeeperLockStore::close);
		this.clients.forEach(CuratorFramework::close);
	}

}
