package dev.lockstarter.store.zookeeper;

import java.time.Duration;

import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryUntilElapsed;
import org.apache.zookeeper.client.ZKClientConfig;

import org.springframework.util.Assert;

/**
 * Curator clients for a {@link ZooKeeperLockStore} whose own waits are bounded as the
 * store's calls are: a connection attempt, a request and Curator's retries each end
 * within the store's timeout, whatever Curator's and ZooKeeper's defaults are.
 *
 * @since 0.1.0
 */
public final class ZooKeeperClients {

	private static final int RETRY_PAUSE_MILLIS = 50;

	private ZooKeeperClients() {
	}

	/**
	 * A builder of a client bounded by the timeout, to which the caller may add more
	 * (credentials, an ACL provider) before it builds and starts it.
	 * @param connectString the servers, {@code host:port} separated by commas
	 * @param sessionTimeout the session timeout the client asks for (the servers clamp it
	 * to between 2 and 20 ticks)
	 * @param timeout the longest a connection attempt, a request or a retried call waits
	 * @return the builder
	 */
	public static CuratorFrameworkFactory.Builder bounded(String connectString, Duration sessionTimeout,
			Duration timeout) {
		Assert.hasText(connectString, "'connectString' must not be empty");
		Assert.isTrue(sessionTimeout != null && sessionTimeout.toMillis() > 0, "'sessionTimeout' must be positive");
		Assert.isTrue(timeout != null && timeout.toMillis() > 0, "'timeout' must be positive");
		int timeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
		ZKClientConfig config = new ZKClientConfig();
		config.setProperty(ZKClientConfig.ZOOKEEPER_REQUEST_TIMEOUT, Integer.toString(timeoutMillis));
		return CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs((int) Math.min(Integer.MAX_VALUE, sessionTimeout.toMillis()))
			.connectionTimeoutMs(timeoutMillis)
			.retryPolicy(new RetryUntilElapsed(timeoutMillis, RETRY_PAUSE_MILLIS))
			.zkClientConfig(config);
	}

}
