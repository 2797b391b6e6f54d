package dev.lockstarter.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

import dev.lockstarter.store.zookeeper.ZooKeeperClients;
import dev.lockstarter.store.zookeeper.ZooKeeperLockStore;
import dev.lockstarter.test.zookeeper.ZooKeeperServer;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

/**
 * The locks on ZooKeeper that {@link FailoverStoreCycleBenchmarks} measures side by side,
 * each with its own Curator client (Curator's default session and retry settings) to the
 * same kind of fresh standalone server:
 * <ul>
 * <li>{@link #lockTemplate this starter}: {@code LockTemplate} on
 * {@code ZooKeeperLockStore} (a persistent node per key: acquire creates it, or reads and
 * rewrites it at the version read; release rewrites it as free);</li>
 * <li>Curator's {@code InterProcessMutex}, one per key as its recipe is meant to be used
 * (an ephemeral sequential node under the key's path, the children read to see whose turn
 * it is, the node deleted on release), with a zero wait;</li>
 * <li>Spring Integration's {@code ZookeeperLockRegistry}, which runs the same recipe
 * behind a {@code Lock} and caches one mutex per key, with its {@code tryLock()}.</li>
 * </ul>
 */
final class ZooKeeperPeerCycles {

	private static final String ROOT = "/benchmark-peers";

	/**
	 * The session timeout of the starter's client:
	 * {@code lock.zookeeper.session-timeout}'s default.
	 */
	private static final Duration STORE_SESSION_TIMEOUT = Duration.ofSeconds(10);

	private ZooKeeperPeerCycles() {
	}

	/**
	 * This starter: {@code LockTemplate} on {@code ZooKeeperLockStore}, its client built
	 * by {@code ZooKeeperClients} with the store's default timeout and session timeout.
	 * @param server the server
	 * @return the cycle
	 */
	static LockCycle lockTemplate(ZooKeeperServer server) {
		CuratorFramework curator = starterClient(server.connectString());
		ZooKeeperLockStore store = new ZooKeeperLockStore(curator);
		return LockCycle.lockTemplate(store, PostgresPeerCycles.TTL, () -> {
			store.close();
			curator.close();
		});
	}

	/**
	 * A started Curator client bounded as the store's auto-configuration bounds its own.
	 * @param connectString the servers
	 * @return the client, connected
	 */
	static CuratorFramework starterClient(String connectString) {
		CuratorFramework curator = ZooKeeperClients
			.bounded(connectString, STORE_SESSION_TIMEOUT, ZooKeeperLockStore.DEFAULT_TIMEOUT)
			.build();
		curator.start();
		awaitConnected(curator, connectString);
		return curator;
	}

	static LockCycle curatorMutex(ZooKeeperServer server) {
		CuratorFramework curator = curator(server.connectString());
		return new LockCycle() {

			@Override
			public boolean cycle(String key) {
				InterProcessMutex mutex = new InterProcessMutex(curator, ROOT + "/" + key);
				try {
					if (!mutex.acquire(0, TimeUnit.MILLISECONDS)) {
						return false;
					}
					mutex.release();
					return true;
				}
				catch (Exception ex) {
					throw new IllegalStateException("Curator lock failed", ex);
				}
			}

			@Override
			public void close() {
				curator.close();
			}

		};
	}

	static LockCycle springIntegration(ZooKeeperServer server) {
		CuratorFramework curator = curator(server.connectString());
		ZookeeperLockRegistry registry = new ZookeeperLockRegistry(curator, ROOT);
		return LockCycle.tryLock(registry::obtain, () -> {
			registry.destroy();
			curator.close();
		});
	}

	/**
	 * A started Curator client with Curator's default session settings, connected.
	 * @param connectString the servers
	 * @return the client
	 */
	static CuratorFramework curator(String connectString) {
		CuratorFramework curator = CuratorFrameworkFactory.newClient(connectString,
				new ExponentialBackoffRetry(100, 3));
		curator.start();
		awaitConnected(curator, connectString);
		return curator;
	}

	private static void awaitConnected(CuratorFramework curator, String connectString) {
		try {
			if (!curator.blockUntilConnected(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("No connection to " + connectString);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

}
