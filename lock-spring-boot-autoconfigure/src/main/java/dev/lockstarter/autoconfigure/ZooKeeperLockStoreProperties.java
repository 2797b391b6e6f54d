package dev.lockstarter.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Configuration properties of the ZooKeeper lock store, used with
 * {@code lock.store=zookeeper}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("lock.zookeeper")
public class ZooKeeperLockStoreProperties implements InitializingBean {

	/**
	 * Servers of the ZooKeeper ensemble, "host:port" separated by commas; list them all.
	 * Ignored when the application defines a CuratorFramework bean.
	 */
	private String connectString = "127.0.0.1:2181";

	/**
	 * Longest time a lock operation waits for ZooKeeper, reconnections and retries
	 * included, before it fails.
	 */
	private Duration timeout = Duration.ofSeconds(2);

	/**
	 * Session timeout the client asks for. It only concerns the connection (how long the
	 * ensemble keeps a silent client's session); locks are not bound to sessions and last
	 * their time-to-live. The servers clamp it to between 2 and 20 ticks. Ignored when
	 * the application defines a CuratorFramework bean.
	 */
	private Duration sessionTimeout = Duration.ofSeconds(10);

	/**
	 * Node under which the store keeps its lock and result nodes.
	 */
	private String basePath = "/lock-starter";

	/**
	 * User name of digest authentication, for an ensemble with ACLs: the store's nodes
	 * are then readable and writable only by this identity. Ignored when the application
	 * defines a CuratorFramework bean.
	 */
	private @Nullable String username;

	/**
	 * Password of digest authentication. Ignored when the application defines a
	 * CuratorFramework bean.
	 */
	private @Nullable String password;

	public String getConnectString() {
		return this.connectString;
	}

	public void setConnectString(String connectString) {
		this.connectString = connectString;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public Duration getSessionTimeout() {
		return this.sessionTimeout;
	}

	public void setSessionTimeout(Duration sessionTimeout) {
		this.sessionTimeout = sessionTimeout;
	}

	public String getBasePath() {
		return this.basePath;
	}

	public void setBasePath(String basePath) {
		this.basePath = basePath;
	}

	public @Nullable String getUsername() {
		return this.username;
	}

	public void setUsername(@Nullable String username) {
		this.username = username;
	}

	public @Nullable String getPassword() {
		return this.password;
	}

	public void setPassword(@Nullable String password) {
		this.password = password;
	}

	@Override
	public void afterPropertiesSet() {
		if (!this.connectString.matches("[^\\s,/]+:\\d+(,[^\\s,/]+:\\d+)*(/\\S*)?")) {
			throw new InvalidConfigurationPropertyValueException("lock.zookeeper.connect-string", this.connectString,
					"The connect string lists the servers as host:port separated by commas, such as "
							+ "zk1:2181,zk2:2181,zk3:2181.");
		}
		PropertyChecks.positive("lock.zookeeper.timeout", this.timeout, "The timeout must be positive.");
		PropertyChecks.positive("lock.zookeeper.session-timeout", this.sessionTimeout,
				"The session timeout must be positive.");
		if (!isValidPath(this.basePath)) {
			throw new InvalidConfigurationPropertyValueException("lock.zookeeper.base-path", this.basePath,
					"The base path must be a ZooKeeper path such as /lock-starter: it starts with '/', does not "
							+ "end with one, and has no empty, '.' or '..' segment.");
		}
		if ((this.username == null) != (this.password == null)) {
			String missing = (this.username == null) ? "lock.zookeeper.username" : "lock.zookeeper.password";
			throw new InvalidConfigurationPropertyValueException(missing, null,
					"Digest authentication needs both lock.zookeeper.username and lock.zookeeper.password.");
		}
	}

	private static boolean isValidPath(String path) {
		if ("/".equals(path)) {
			return true;
		}
		if (!path.startsWith("/") || path.endsWith("/")) {
			return false;
		}
		for (String segment : path.substring(1).split("/", -1)) {
			if (segment.isEmpty() || ".".equals(segment) || "..".equals(segment)
					|| segment.chars().anyMatch((c) -> c < 0x20 || (c >= 0x7f && c <= 0x9f))) {
				return false;
			}
		}
		return true;
	}

}
