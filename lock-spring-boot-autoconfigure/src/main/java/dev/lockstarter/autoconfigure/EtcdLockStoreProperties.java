package dev.lockstarter.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Configuration properties of the etcd lock store, used with {@code lock.store=etcd}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("lock.etcd")
public class EtcdLockStoreProperties implements InitializingBean {

	/**
	 * Client URLs of the etcd members, such as http://10.0.0.1:2379; give every member,
	 * so that the client fails over. Ignored when the application defines an etcd Client
	 * bean.
	 */
	private List<String> endpoints = new ArrayList<>(List.of("http://127.0.0.1:2379"));

	/**
	 * Longest time a lock operation waits for etcd before it fails. Also bounds the
	 * client's connection attempts, keep-alive pings and retries when the store builds
	 * its own client.
	 */
	private Duration timeout = Duration.ofSeconds(2);

	/**
	 * Prefix of the etcd keys of the locks.
	 */
	private String prefix = "/lock-starter/locks/";

	/**
	 * Prefix of the etcd keys of the results kept next to locks (single-flight,
	 * idempotent responses). Must neither start with the lock prefix nor be a prefix of
	 * it.
	 */
	private String resultsPrefix = "/lock-starter/results/";

	/**
	 * Name of the etcd user, when etcd has authentication enabled. Ignored when the
	 * application defines an etcd Client bean.
	 */
	private @Nullable String username;

	/**
	 * Password of the etcd user. Ignored when the application defines an etcd Client
	 * bean.
	 */
	private @Nullable String password;

	private final Ssl ssl = new Ssl();

	public List<String> getEndpoints() {
		return this.endpoints;
	}

	public void setEndpoints(List<String> endpoints) {
		this.endpoints = endpoints;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public String getPrefix() {
		return this.prefix;
	}

	public void setPrefix(String prefix) {
		this.prefix = prefix;
	}

	public String getResultsPrefix() {
		return this.resultsPrefix;
	}

	public void setResultsPrefix(String resultsPrefix) {
		this.resultsPrefix = resultsPrefix;
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

	public Ssl getSsl() {
		return this.ssl;
	}

	@Override
	public void afterPropertiesSet() {
		if (this.endpoints.isEmpty()) {
			throw new InvalidConfigurationPropertyValueException("lock.etcd.endpoints", "",
					"Name at least one etcd member, such as http://127.0.0.1:2379.");
		}
		for (int i = 0; i < this.endpoints.size(); i++) {
			checkEndpoint("lock.etcd.endpoints[" + i + "]", this.endpoints.get(i));
		}
		PropertyChecks.positive("lock.etcd.timeout", this.timeout, "The timeout must be positive.");
		if (this.prefix.isEmpty()) {
			throw new InvalidConfigurationPropertyValueException("lock.etcd.prefix", this.prefix,
					"The prefix must not be empty: the store watches every key under it.");
		}
		if (this.resultsPrefix.isEmpty() || this.resultsPrefix.startsWith(this.prefix)
				|| this.prefix.startsWith(this.resultsPrefix)) {
			throw new InvalidConfigurationPropertyValueException("lock.etcd.results-prefix", this.resultsPrefix,
					"The results prefix must not be empty, and neither start with the lock prefix ('" + this.prefix
							+ "') nor be a prefix of it.");
		}
		if ((this.username == null) != (this.password == null)) {
			throw new InvalidConfigurationPropertyValueException(
					(this.username == null) ? "lock.etcd.username" : "lock.etcd.password", null,
					"Set both lock.etcd.username and lock.etcd.password, or neither.");
		}
	}

	private static void checkEndpoint(String property, String endpoint) {
		String reason = "An endpoint is an http or https URL with a host and a port, such as http://127.0.0.1:2379.";
		URI uri;
		try {
			uri = new URI(endpoint);
		}
		catch (URISyntaxException ex) {
			throw new InvalidConfigurationPropertyValueException(property, endpoint, reason);
		}
		if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
				|| uri.getPort() < 0) {
			throw new InvalidConfigurationPropertyValueException(property, endpoint, reason);
		}
	}

	/**
	 * TLS properties.
	 */
	public static class Ssl {

		/**
		 * Name of the Spring Boot SSL bundle (spring.ssl.bundle.*) whose trust material
		 * (and key material, for client certificates) secures the connections to etcd.
		 * Use https endpoints with it.
		 */
		private @Nullable String bundle;

		public @Nullable String getBundle() {
			return this.bundle;
		}

		public void setBundle(@Nullable String bundle) {
			this.bundle = bundle;
		}

	}

}
