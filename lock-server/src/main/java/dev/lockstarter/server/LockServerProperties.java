package dev.lockstarter.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The lock server's settings, under {@code lock.server}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("lock.server")
public class LockServerProperties {

	/**
	 * The clients allowed to call the server, each with an API key and a namespace.
	 */
	private List<Client> clients = new ArrayList<>();

	/**
	 * Settings per namespace, by namespace; a namespace that a client names but that has
	 * no entry here uses the defaults.
	 */
	private Map<String, Namespace> namespaces = new LinkedHashMap<>();

	/**
	 * Time-to-live of a lock whose request gives none.
	 */
	private Duration defaultTtl = Duration.ofSeconds(30);

	/**
	 * Longest time-to-live a request may ask for; longer is refused (400). A client that
	 * needs a lock for longer renews it.
	 */
	private Duration maxTtl = Duration.ofMinutes(10);

	/**
	 * Longest wait an acquisition may ask for; longer is refused (400). A waiting request
	 * holds no request thread.
	 */
	private Duration maxWait = Duration.ofSeconds(30);

	/**
	 * Most acquisitions that one API key may have waiting at once, on this instance; more
	 * are refused (429). A client's own max-waits overrides it.
	 */
	private int maxWaitsPerClient = 100;

	/**
	 * Most acquisitions that all API keys together may have waiting at once, on this
	 * instance; more are refused (429).
	 */
	private int maxWaits = 1000;

	/**
	 * Most locks that one API key may hold at once, counted on the instance that granted
	 * them until they are released through it or expire; more are refused (429).
	 * Acquisitions in progress count. A client's own max-locks overrides it.
	 */
	private int maxLocksPerClient = 1000;

	/**
	 * Longest lock key, in bytes of UTF-8; longer is refused (413).
	 */
	private int maxKeyBytes = 200;

	/**
	 * Longest request body, in bytes; longer is refused (413).
	 */
	private int maxBodyBytes = 1024;

	/**
	 * The rate limit of each API key.
	 */
	private final RateLimit rateLimit = new RateLimit();

	public List<Client> getClients() {
		return this.clients;
	}

	public void setClients(List<Client> clients) {
		this.clients = clients;
	}

	public Map<String, Namespace> getNamespaces() {
		return this.namespaces;
	}

	public void setNamespaces(Map<String, Namespace> namespaces) {
		this.namespaces = namespaces;
	}

	public Duration getDefaultTtl() {
		return this.defaultTtl;
	}

	public void setDefaultTtl(Duration defaultTtl) {
		this.defaultTtl = defaultTtl;
	}

	public Duration getMaxTtl() {
		return this.maxTtl;
	}

	public void setMaxTtl(Duration maxTtl) {
		this.maxTtl = maxTtl;
	}

	public Duration getMaxWait() {
		return this.maxWait;
	}

	public void setMaxWait(Duration maxWait) {
		this.maxWait = maxWait;
	}

	public int getMaxWaitsPerClient() {
		return this.maxWaitsPerClient;
	}

	public void setMaxWaitsPerClient(int maxWaitsPerClient) {
		this.maxWaitsPerClient = maxWaitsPerClient;
	}

	public int getMaxWaits() {
		return this.maxWaits;
	}

	public void setMaxWaits(int maxWaits) {
		this.maxWaits = maxWaits;
	}

	public int getMaxLocksPerClient() {
		return this.maxLocksPerClient;
	}

	public void setMaxLocksPerClient(int maxLocksPerClient) {
		this.maxLocksPerClient = maxLocksPerClient;
	}

	public int getMaxKeyBytes() {
		return this.maxKeyBytes;
	}

	public void setMaxKeyBytes(int maxKeyBytes) {
		this.maxKeyBytes = maxKeyBytes;
	}

	public int getMaxBodyBytes() {
		return this.maxBodyBytes;
	}

	public void setMaxBodyBytes(int maxBodyBytes) {
		this.maxBodyBytes = maxBodyBytes;
	}

	public RateLimit getRateLimit() {
		return this.rateLimit;
	}

	/**
	 * A client of the server.
	 */
	public static class Client {

		/**
		 * The client's name, for logs; never the key itself.
		 */
		private @Nullable String name;

		/**
		 * The SHA-256 of the client's API key, 64 hexadecimal digits (for example the
		 * output of {@code printf %s "$KEY" | sha256sum}). The key itself is never
		 * configured.
		 */
		private @Nullable String apiKeySha256;

		/**
		 * The only namespace whose locks the client may acquire, renew, release and see.
		 */
		private @Nullable String namespace;

		/**
		 * The client's own rate limit, in requests per second; the server's
		 * {@code lock.server.rate-limit} when not set.
		 */
		private @Nullable Integer requestsPerSecond;

		/**
		 * The client's own burst; the server's {@code lock.server.rate-limit.burst} when
		 * not set.
		 */
		private @Nullable Integer burst;

		/**
		 * The client's own limit of waiting acquisitions; the server's
		 * {@code lock.server.max-waits-per-client} when not set.
		 */
		private @Nullable Integer maxWaits;

		/**
		 * The client's own limit of held locks; the server's
		 * {@code lock.server.max-locks-per-client} when not set.
		 */
		private @Nullable Integer maxLocks;

		public @Nullable Integer getMaxWaits() {
			return this.maxWaits;
		}

		public void setMaxWaits(@Nullable Integer maxWaits) {
			this.maxWaits = maxWaits;
		}

		public @Nullable Integer getMaxLocks() {
			return this.maxLocks;
		}

		public void setMaxLocks(@Nullable Integer maxLocks) {
			this.maxLocks = maxLocks;
		}

		public @Nullable String getName() {
			return this.name;
		}

		public @Nullable Integer getRequestsPerSecond() {
			return this.requestsPerSecond;
		}

		public void setRequestsPerSecond(@Nullable Integer requestsPerSecond) {
			this.requestsPerSecond = requestsPerSecond;
		}

		public @Nullable Integer getBurst() {
			return this.burst;
		}

		public void setBurst(@Nullable Integer burst) {
			this.burst = burst;
		}

		public void setName(@Nullable String name) {
			this.name = name;
		}

		public @Nullable String getApiKeySha256() {
			return this.apiKeySha256;
		}

		public void setApiKeySha256(@Nullable String apiKeySha256) {
			this.apiKeySha256 = apiKeySha256;
		}

		public @Nullable String getNamespace() {
			return this.namespace;
		}

		public void setNamespace(@Nullable String namespace) {
			this.namespace = namespace;
		}

	}

	/**
	 * The settings of one namespace.
	 */
	public static class Namespace {

		/**
		 * The prefix of the namespace's keys in the lock store. Defaults to
		 * {@code lock-server:<namespace>:}. No two namespaces may share keys: a prefix
		 * that is empty, equal to another namespace's or the start of another's fails
		 * startup. A prefix that overlaps the applications' {@code lock.key-prefix} needs
		 * shares-application-keys.
		 */
		private @Nullable String keyPrefix;

		/**
		 * Whether the namespace's key prefix may overlap the applications'
		 * {@code lock.key-prefix}, to share locks with their {@code @ExclusiveRequest}
		 * methods. The namespace's clients can then take, and see the state of, every
		 * application key under the prefix, idempotency records and job locks included.
		 */
		private boolean sharesApplicationKeys;

		public boolean isSharesApplicationKeys() {
			return this.sharesApplicationKeys;
		}

		public void setSharesApplicationKeys(boolean sharesApplicationKeys) {
			this.sharesApplicationKeys = sharesApplicationKeys;
		}

		public @Nullable String getKeyPrefix() {
			return this.keyPrefix;
		}

		public void setKeyPrefix(@Nullable String keyPrefix) {
			this.keyPrefix = keyPrefix;
		}

	}

	/**
	 * A token bucket per API key.
	 */
	public static class RateLimit {

		/**
		 * Requests each API key may make per second, on average; 0 turns the limit off.
		 */
		private int requestsPerSecond = 100;

		/**
		 * Requests an API key may make at once after being idle.
		 */
		private int burst = 200;

		public int getRequestsPerSecond() {
			return this.requestsPerSecond;
		}

		public void setRequestsPerSecond(int requestsPerSecond) {
			this.requestsPerSecond = requestsPerSecond;
		}

		public int getBurst() {
			return this.burst;
		}

		public void setBurst(int burst) {
			this.burst = burst;
		}

	}

}
