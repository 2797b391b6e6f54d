package dev.lockstarter.store.zookeeper;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;

/**
 * Curator clients for the tests, built as the auto-configuration builds its own
 * ({@link ZooKeeperClients#bounded}): calls and connection attempts bounded by the
 * store's timeout.
 */
final class TestClients {

	static final Duration TIMEOUT = Duration.ofSeconds(2);

	static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

	private TestClients() {
	}

	static CuratorFramework start(String connectString) {
		return start(connectString, TIMEOUT, SESSION_TIMEOUT);
	}

	static CuratorFramework start(String connectString, Duration timeout, Duration sessionTimeout) {
		CuratorFramework client = ZooKeeperClients.bounded(connectString, sessionTimeout, timeout).build();
		client.start();
		try {
			if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
				client.close();
				throw new IllegalStateException("No connection to ZooKeeper at " + connectString);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		return client;
	}

}
