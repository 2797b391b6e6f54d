package dev.lockstarter.integration;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.zookeeper.ZooKeeperClients;
import dev.lockstarter.store.zookeeper.ZooKeeperLockStore;
import dev.lockstarter.test.zookeeper.ZooKeeperServerExtension;

/**
 * {@link LeaderElectionPauseTests} on the {@link ZooKeeperLockStore}, against a real
 * ZooKeeper server; each member has a Curator client of its own, whose session outlives
 * the pause.
 */
class ZooKeeperLeaderElectionPauseTests extends LeaderElectionPauseTests {

	@RegisterExtension
	static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();

	@Override
	protected Class<? extends MemberStores> memberStores() {
		return Stores.class;
	}

	@Override
	protected String address() {
		return zookeeper.connectString();
	}

	static final class Stores implements MemberStores {

		@Override
		public Opened open(String address) {
			CuratorFramework client = ZooKeeperClients.bounded(address, Duration.ofSeconds(10), Duration.ofSeconds(2))
				.build();
			client.start();
			try {
				if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
					client.close();
					throw new IllegalStateException("No connection to ZooKeeper at " + address);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				client.close();
				throw new IllegalStateException("Interrupted while connecting to ZooKeeper at " + address, ex);
			}
			ZooKeeperLockStore store = new ZooKeeperLockStore(client);
			return new Opened(store, () -> {
				store.close();
				client.close();
			});
		}

	}

}
