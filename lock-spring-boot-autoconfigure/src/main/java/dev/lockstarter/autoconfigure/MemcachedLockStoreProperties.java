package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Configuration properties of the Memcached lock store, used with
 * {@code lock.store=memcached}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("lock.memcached")
public class MemcachedLockStoreProperties implements InitializingBean {

	/**
	 * Memcached servers, as host:port. Lock keys are spread among them by consistent
	 * hashing.
	 */
	private List<String> servers = new ArrayList<>(List.of("localhost:11211"));

	/**
	 * Longest time to wait for a connection to a Memcached server.
	 */
	private Duration connectTimeout = Duration.ofSeconds(1);

	/**
	 * Longest time a lock operation waits for a Memcached server to answer before it
	 * fails.
	 */
	private Duration operationTimeout = Duration.ofSeconds(1);

	public List<String> getServers() {
		return this.servers;
	}

	public void setServers(List<String> servers) {
		this.servers = servers;
	}

	public Duration getConnectTimeout() {
		return this.connectTimeout;
	}

	public void setConnectTimeout(Duration connectTimeout) {
		this.connectTimeout = connectTimeout;
	}

	public Duration getOperationTimeout() {
		return this.operationTimeout;
	}

	public void setOperationTimeout(Duration operationTimeout) {
		this.operationTimeout = operationTimeout;
	}

	@Override
	public void afterPropertiesSet() {
		if (this.servers.isEmpty()) {
			throw new InvalidConfigurationPropertyValueException("lock.memcached.servers", "",
					"At least one Memcached server is needed, as host:port.");
		}
		for (String server : this.servers) {
			if (port(server) < 0) {
				throw new InvalidConfigurationPropertyValueException("lock.memcached.servers", server,
						"A Memcached server must be given as host:port, such as localhost:11211.");
			}
		}
		PropertyChecks.positive("lock.memcached.connect-timeout", this.connectTimeout,
				"The connect timeout must be positive.");
		PropertyChecks.positive("lock.memcached.operation-timeout", this.operationTimeout,
				"The operation timeout must be positive.");
	}

	/**
	 * Return the port of a host:port server address, or -1 if it is not one.
	 */
	static int port(String server) {
		int colon = server.lastIndexOf(':');
		if (colon <= 0 || colon == server.length() - 1 || server.strip().length() != server.length()) {
			return -1;
		}
		try {
			int port = Integer.parseInt(server.substring(colon + 1));
			return (port > 0 && port <= 65535) ? port : -1;
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	/**
	 * Return the host of a valid host:port server address, without IPv6 brackets.
	 */
	static String host(String server) {
		String host = server.substring(0, server.lastIndexOf(':'));
		return (host.startsWith("[") && host.endsWith("]")) ? host.substring(1, host.length() - 1) : host;
	}

}
