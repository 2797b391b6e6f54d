package dev.lockstarter.store.zookeeper;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryUntilElapsed;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * Curator clients for the tests, configured as the auto-configuration does: calls and
 * connection attempts bounded by the store's timeout.
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
		ZKClientConfig config = new ZKClientConfig();
		config.setProperty(ZKClientConfig.ZOOKEEPER_REQUEST_TIMEOUT, Long.toString(timeout.toMillis()));
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs((int) sessionTimeout.toMillis())
			.connectionTimeoutMs((int) timeout.toMillis())
			.retryPolicy(new RetryUntilElapsed((int) timeout.toMillis(), 50))
			.zkClientConfig(config)
			.build();
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
