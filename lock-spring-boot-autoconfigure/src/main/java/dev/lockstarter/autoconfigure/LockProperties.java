package dev.lockstarter.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.interceptor.ExclusiveRequestAdvisor;
import dev.lockstarter.interceptor.StoreFailurePolicy;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties for distributed request locking.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("lock")
public class LockProperties implements InitializingBean {

	/**
	 * Whether to enable @ExclusiveRequest locking and the lock beans.
	 */
	private boolean enabled = true;

	/**
	 * Lock store to use. Defaults to Redis when a RedisConnectionFactory is available,
	 * and to the in-memory store otherwise.
	 */
	private @Nullable Store store;

	/**
	 * Time-to-live of a lock whose @ExclusiveRequest sets none: the longest time a
	 * crashed holder can block its key.
	 */
	private Duration ttl = Duration.ofSeconds(30);

	/**
	 * How long a call waits for a held lock before it is rejected, when
	 * its @ExclusiveRequest sets no wait time. Zero rejects at once.
	 */
	private Duration waitTime = Duration.ZERO;

	/**
	 * Whether to extend held locks before they expire, for as long as the guarded method
	 * runs.
	 */
	private boolean renew = true;

	/**
	 * Longest time a lock is renewed while its method runs, so that a hung method cannot
	 * hold it forever. Zero or negative means no limit.
	 */
	private Duration maxHold = Duration.ofMinutes(10);

	/**
	 * How long the result of an @ExclusiveRequest(onConflict = SHARE_RESULT) method is
	 * kept for the callers that waited for it, when the annotation sets no resultTtl.
	 */
	private Duration resultTtl = Duration.ofSeconds(10);

	/**
	 * Prefix of every lock key in the store.
	 */
	private String keyPrefix = "lock:";

	/**
	 * Order of the @ExclusiveRequest advice among other advice. The default places the
	 * lock outside @Transactional, so it is released after the commit.
	 */
	private int order = ExclusiveRequestAdvisor.DEFAULT_ORDER;

	/**
	 * What an @ExclusiveRequest method does when the lock store fails to answer:
	 * fail-closed (the method does not run, 503) or fail-open (the method runs WITHOUT a
	 * lock, giving up mutual exclusion while the store fails).
	 */
	private StoreFailurePolicy onStoreFailure = StoreFailurePolicy.FAIL_CLOSED;

	private final Web web = new Web();

	private volatile @Nullable DefaultOptions defaultOptions;

	/**
	 * Idempotent request (@IdempotentRequest) settings.
	 */
	private final Idempotency idempotency = new Idempotency();

	/**
	 * Redis lock store settings, used with lock.store=redis.
	 */
	private final Redis redis = new Redis();

	/**
	 * Memcached lock store settings, used with lock.store=memcached.
	 */
	private final Memcached memcached = new Memcached();

	/**
	 * DynamoDB lock store settings, used with lock.store=dynamodb.
	 */
	private final DynamoDb dynamodb = new DynamoDb();

	/**
	 * JDBC lock store settings, used with lock.store=jdbc.
	 */
	private final Jdbc jdbc = new Jdbc();

	/**
	 * Actuator settings: the locks endpoint.
	 */
	private final Actuator actuator = new Actuator();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable Store getStore() {
		return this.store;
	}

	public void setStore(@Nullable Store store) {
		this.store = store;
	}

	public Duration getTtl() {
		return this.ttl;
	}

	public void setTtl(Duration ttl) {
		this.ttl = ttl;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		this.waitTime = waitTime;
	}

	public boolean isRenew() {
		return this.renew;
	}

	public void setRenew(boolean renew) {
		this.renew = renew;
	}

	public Duration getMaxHold() {
		return this.maxHold;
	}

	public void setMaxHold(Duration maxHold) {
		this.maxHold = maxHold;
	}

	public Duration getResultTtl() {
		return this.resultTtl;
	}

	public void setResultTtl(Duration resultTtl) {
		this.resultTtl = resultTtl;
	}

	public StoreFailurePolicy getOnStoreFailure() {
		return this.onStoreFailure;
	}

	public void setOnStoreFailure(StoreFailurePolicy onStoreFailure) {
		this.onStoreFailure = onStoreFailure;
	}

	/**
	 * Return the lock options of an @ExclusiveRequest that sets none of its own. Asked on
	 * every call of such a method: the same instance is returned until one of the
	 * properties it is made of changes (a rebinding), so that each method's resolved
	 * options stay cached.
	 * @return the default options
	 */
	public LockOptions toDefaultOptions() {
		DefaultOptions cached = this.defaultOptions;
		if (cached != null && cached.ttl == this.ttl && cached.waitTime == this.waitTime && cached.renew == this.renew
				&& cached.maxHold == this.maxHold) {
			return cached.options;
		}
		boolean limited = !this.maxHold.isZero() && !this.maxHold.isNegative();
		LockOptions options = LockOptions.ttl(this.ttl)
			.withWaitTime(this.waitTime)
			.withRenewal(this.renew)
			.withMaxHold(limited ? this.maxHold : null);
		this.defaultOptions = new DefaultOptions(this.ttl, this.waitTime, this.renew, this.maxHold, options);
		return options;
	}

	/** The default options and the property values they were made of. */
	private record DefaultOptions(Duration ttl, Duration waitTime, boolean renew, Duration maxHold,
			LockOptions options) {

	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public int getOrder() {
		return this.order;
	}

	public void setOrder(int order) {
		this.order = order;
	}

	public Web getWeb() {
		return this.web;
	}

	public Idempotency getIdempotency() {
		return this.idempotency;
	}

	public Redis getRedis() {
		return this.redis;
	}

	public Memcached getMemcached() {
		return this.memcached;
	}

	public DynamoDb getDynamodb() {
		return this.dynamodb;
	}

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	public Actuator getActuator() {
		return this.actuator;
	}

	@Override
	public void afterPropertiesSet() {
		if (this.ttl.isZero() || this.ttl.isNegative()) {
			throw new InvalidConfigurationPropertyValueException("lock.ttl", this.ttl,
					"The lock time-to-live must be positive.");
		}
		if (this.waitTime.isNegative()) {
			throw new InvalidConfigurationPropertyValueException("lock.wait-time", this.waitTime,
					"The wait time must not be negative.");
		}
		if (!isPositive(this.resultTtl)) {
			throw new InvalidConfigurationPropertyValueException("lock.result-ttl", this.resultTtl,
					"The result time-to-live must be positive.");
		}
		int status = this.web.getConflictStatus();
		if (status < 400 || status > 499) {
			throw new InvalidConfigurationPropertyValueException("lock.web.conflict-status", status,
					"The conflict status must be a 4xx client error status, such as 409 or 422.");
		}
		if (this.keyPrefix.length() > 150) {
			throw new InvalidConfigurationPropertyValueException("lock.key-prefix", this.keyPrefix,
					"The key prefix must be at most 150 characters long.");
		}
		this.redis.validate();
		this.memcached.validate(this.store == Store.MEMCACHED, this.ttl);
		this.dynamodb.validate();
		this.jdbc.validate();
		this.idempotency.validate();
	}

	/**
	 * Lock stores.
	 */
	public enum Store {

		/**
		 * Redis, through the application's RedisConnectionFactory.
		 */
		REDIS,

		/**
		 * This JVM's memory: locks are not shared between application instances.
		 */
		MEMORY,

		/**
		 * Memcached, through the xmemcached client: locks are lost when a server evicts
		 * them or restarts.
		 */
		MEMCACHED,

		/**
		 * Amazon DynamoDB, through the AWS SDK: expiry is decided by the application
		 * instances' clocks.
		 */
		DYNAMODB,

		/**
		 * A relational database (PostgreSQL or H2), through the application's DataSource:
		 * expiry is decided by the database's clock.
		 */
		JDBC

	}

	/**
	 * Web error mapping properties.
	 */
	public static class Web {

		/**
		 * HTTP status of the response to a request rejected because another request holds
		 * its lock: 409, or another 4xx status such as 422.
		 */
		private int conflictStatus = 409;

		public int getConflictStatus() {
			return this.conflictStatus;
		}

		public void setConflictStatus(int conflictStatus) {
			this.conflictStatus = conflictStatus;
		}

	}

	/**
	 * Idempotent request properties.
	 */
	public static class Idempotency {

		/**
		 * Whether to enable @IdempotentRequest handling in servlet and reactive web
		 * applications.
		 */
		private boolean enabled = true;

		/**
		 * How long the response of an idempotent request is kept for replays, when its
		 * @IdempotentRequest sets none. A retry after it runs the request again.
		 */
		private Duration retention = Duration.ofHours(24);

		/**
		 * Response headers kept and replayed besides the status and body. Content-Type is
		 * always kept; Set-Cookie never is.
		 */
		private List<String> replayedHeaders = new ArrayList<>(
				List.of("Content-Type", "Location", "ETag", "Cache-Control"));

		/**
		 * Whether to keep and replay server error (5xx) responses. By default they are
		 * not kept, so a retry runs the request again.
		 */
		private boolean storeServerErrors;

		/**
		 * Longest accepted Idempotency-Key, in characters. Longer keys are rejected with
		 * 400.
		 */
		private int maxKeyLength = 255;

		/**
		 * Largest accepted body of an idempotent request, which is buffered in memory to
		 * compare it with a retry's. Larger bodies are rejected with 413.
		 */
		private DataSize maxBodySize = DataSize.ofMegabytes(1);

		/**
		 * Whether to keep the response of an idempotent request in the same database
		 * transaction as the handler's own writes, so that a crash leaves both or
		 * neither. Needs lock.store=jdbc and a transaction manager for its DataSource. A
		 * response that is not kept (5xx, 408, 409, 425, 429, an unhandled exception)
		 * then also rolls back the handler's writes. Servlet web applications only: a
		 * reactive application with it fails at startup.
		 */
		private boolean transactional;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = retention;
		}

		public List<String> getReplayedHeaders() {
			return this.replayedHeaders;
		}

		public void setReplayedHeaders(List<String> replayedHeaders) {
			this.replayedHeaders = replayedHeaders;
		}

		public boolean isStoreServerErrors() {
			return this.storeServerErrors;
		}

		public void setStoreServerErrors(boolean storeServerErrors) {
			this.storeServerErrors = storeServerErrors;
		}

		public int getMaxKeyLength() {
			return this.maxKeyLength;
		}

		public void setMaxKeyLength(int maxKeyLength) {
			this.maxKeyLength = maxKeyLength;
		}

		public boolean isTransactional() {
			return this.transactional;
		}

		public void setTransactional(boolean transactional) {
			this.transactional = transactional;
		}

		public DataSize getMaxBodySize() {
			return this.maxBodySize;
		}

		public void setMaxBodySize(DataSize maxBodySize) {
			this.maxBodySize = maxBodySize;
		}

		void validate() {
			if (!isPositive(this.retention)) {
				throw new InvalidConfigurationPropertyValueException("lock.idempotency.retention", this.retention,
						"The retention must be positive.");
			}
			for (String header : this.replayedHeaders) {
				String name = (header != null) ? header.strip() : "";
				if (name.isEmpty() || name.equalsIgnoreCase("Set-Cookie") || name.equalsIgnoreCase("Set-Cookie2")) {
					throw new InvalidConfigurationPropertyValueException("lock.idempotency.replayed-headers", header,
							"Replayed headers must be non-blank header names other than Set-Cookie: cookies are "
									+ "never replayed.");
				}
			}
			if (this.maxKeyLength < 1) {
				throw new InvalidConfigurationPropertyValueException("lock.idempotency.max-key-length",
						this.maxKeyLength, "The longest key must be at least 1 character.");
			}
			if (this.maxBodySize.toBytes() < 1) {
				throw new InvalidConfigurationPropertyValueException("lock.idempotency.max-body-size", this.maxBodySize,
						"The largest body must be positive.");
			}
		}

	}

	/**
	 * Redis lock store properties.
	 */
	public static class Redis {

		/**
		 * Longest time a lock operation waits for Redis before it fails (503 for
		 * an @ExclusiveRequest), whatever spring.data.redis.timeout is. Applies with
		 * Lettuce; with Jedis, the client's own timeouts apply.
		 */
		private Duration timeout = Duration.ofSeconds(2);

		/**
		 * Number of replicas that must acknowledge an acquisition (WAIT) before it counts
		 * as acquired, or else it fails. Zero does not wait. Not supported on Redis
		 * Cluster.
		 */
		private int minReplicaAcks;

		/**
		 * Longest time an acquisition waits for the replica acknowledgements of
		 * min-replica-acks. Such an acquisition may take this long on top of
		 * lock.redis.timeout.
		 */
		private Duration replicaAckTimeout = Duration.ofSeconds(1);

		/**
		 * Longest time a thread spins for Redis's answer before it parks, when it is the
		 * only one of the application waiting for Redis and answers keep coming within
		 * this time. Zero parks at once. Applies with Lettuce, to blocking calls.
		 */
		private Duration replySpin = Duration.ofNanos(100_000);

		/**
		 * Settings of the Lettuce client that the lock store relies on.
		 */
		private final Lettuce lettuce = new Lettuce();

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public int getMinReplicaAcks() {
			return this.minReplicaAcks;
		}

		public void setMinReplicaAcks(int minReplicaAcks) {
			this.minReplicaAcks = minReplicaAcks;
		}

		public Duration getReplicaAckTimeout() {
			return this.replicaAckTimeout;
		}

		public void setReplicaAckTimeout(Duration replicaAckTimeout) {
			this.replicaAckTimeout = replicaAckTimeout;
		}

		public Duration getReplySpin() {
			return this.replySpin;
		}

		public void setReplySpin(Duration replySpin) {
			this.replySpin = replySpin;
		}

		public Lettuce getLettuce() {
			return this.lettuce;
		}

		void validate() {
			if (!isPositive(this.timeout)) {
				throw new InvalidConfigurationPropertyValueException("lock.redis.timeout", this.timeout,
						"The Redis lock store timeout must be positive.");
			}
			if (this.minReplicaAcks < 0) {
				throw new InvalidConfigurationPropertyValueException("lock.redis.min-replica-acks", this.minReplicaAcks,
						"The number of replica acknowledgements must not be negative; 0 turns the wait off.");
			}
			if (!isPositive(this.replicaAckTimeout)) {
				throw new InvalidConfigurationPropertyValueException("lock.redis.replica-ack-timeout",
						this.replicaAckTimeout, "The replica acknowledgement timeout must be positive.");
			}
			if (this.replySpin == null || this.replySpin.isNegative()) {
				throw new InvalidConfigurationPropertyValueException("lock.redis.reply-spin", this.replySpin,
						"The reply spin time must not be negative; 0 turns spinning off.");
			}
		}

		/**
		 * Lettuce client settings applied by the Redis lock store, each to Spring Boot's
		 * auto-configured Lettuce client only.
		 */
		public static class Lettuce {

			/**
			 * Whether to lower Lettuce's connect timeout (10 seconds by default) to
			 * lock.redis.timeout when spring.data.redis.connect-timeout is not set.
			 */
			private boolean limitConnectTimeout = true;

			/**
			 * Whether to cap Lettuce's delay between reconnection attempts at 2 seconds
			 * (it grows to 30 seconds by default), so that locking works again within
			 * seconds of Redis answering after an outage. Applies when the application
			 * defines no ClientResources bean.
			 */
			private boolean limitReconnectDelay = true;

			public boolean isLimitConnectTimeout() {
				return this.limitConnectTimeout;
			}

			public void setLimitConnectTimeout(boolean limitConnectTimeout) {
				this.limitConnectTimeout = limitConnectTimeout;
			}

			public boolean isLimitReconnectDelay() {
				return this.limitReconnectDelay;
			}

			public void setLimitReconnectDelay(boolean limitReconnectDelay) {
				this.limitReconnectDelay = limitReconnectDelay;
			}

		}

	}

	/**
	 * Memcached lock store properties.
	 */
	public static class Memcached {

		/**
		 * Longest time-to-live of a Memcached lock: Memcached reads longer expiry times
		 * as absolute times.
		 */
		static final Duration MAX_TTL = Duration.ofDays(30).minusSeconds(3);

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

		void validate(boolean selected, Duration ttl) {
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
			if (!isPositive(this.connectTimeout)) {
				throw new InvalidConfigurationPropertyValueException("lock.memcached.connect-timeout",
						this.connectTimeout, "The connect timeout must be positive.");
			}
			if (!isPositive(this.operationTimeout)) {
				throw new InvalidConfigurationPropertyValueException("lock.memcached.operation-timeout",
						this.operationTimeout, "The operation timeout must be positive.");
			}
			if (selected && ttl.compareTo(MAX_TTL) > 0) {
				throw new InvalidConfigurationPropertyValueException("lock.ttl", ttl,
						"Memcached locks can live at most 30 days less three seconds: Memcached reads longer expiry "
								+ "times as absolute times.");
			}
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

	/**
	 * DynamoDB lock store properties.
	 */
	public static class DynamoDb {

		/**
		 * Name of the DynamoDB table that holds the locks. Its partition key must be a
		 * string named "pk".
		 */
		private String table = "locks";

		/**
		 * DynamoDB endpoint, such as http://localhost:8000 for DynamoDB Local. Defaults
		 * to the AWS SDK's endpoint for the region. Ignored when the application defines
		 * a DynamoDbClient bean.
		 */
		private @Nullable URI endpoint;

		/**
		 * AWS region of the table. Defaults to the AWS SDK's region provider chain, such
		 * as the AWS_REGION environment variable. Ignored when the application defines a
		 * DynamoDbClient bean.
		 */
		private @Nullable String region;

		/**
		 * Longest time a lock operation waits for DynamoDB, retries included, before it
		 * fails. Ignored when the application defines a DynamoDbClient bean.
		 */
		private Duration timeout = Duration.ofSeconds(2);

		/**
		 * Whether to create the table at startup when it does not exist, with on-demand
		 * capacity and Time to Live. Meant for development.
		 */
		private boolean createTable;

		public String getTable() {
			return this.table;
		}

		public void setTable(String table) {
			this.table = table;
		}

		public @Nullable URI getEndpoint() {
			return this.endpoint;
		}

		public void setEndpoint(@Nullable URI endpoint) {
			this.endpoint = endpoint;
		}

		public @Nullable String getRegion() {
			return this.region;
		}

		public void setRegion(@Nullable String region) {
			this.region = region;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public boolean isCreateTable() {
			return this.createTable;
		}

		public void setCreateTable(boolean createTable) {
			this.createTable = createTable;
		}

		void validate() {
			if (!this.table.matches("[a-zA-Z0-9_.-]{3,255}")) {
				throw new InvalidConfigurationPropertyValueException("lock.dynamodb.table", this.table,
						"A DynamoDB table name has 3 to 255 characters among a-z, A-Z, 0-9, '_', '-' and '.'.");
			}
			URI endpoint = this.endpoint;
			if (endpoint != null && (!("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme()))
					|| endpoint.getHost() == null)) {
				throw new InvalidConfigurationPropertyValueException("lock.dynamodb.endpoint", endpoint,
						"The endpoint must be an http or https URL, such as http://localhost:8000.");
			}
			if (this.region != null && this.region.isBlank()) {
				throw new InvalidConfigurationPropertyValueException("lock.dynamodb.region", this.region,
						"The region must not be blank; leave it unset to use the AWS SDK's region provider chain.");
			}
			if (!isPositive(this.timeout)) {
				throw new InvalidConfigurationPropertyValueException("lock.dynamodb.timeout", this.timeout,
						"The timeout must be positive.");
			}
		}

	}

	/**
	 * JDBC lock store properties.
	 */
	public static class Jdbc {

		/**
		 * Name of the table that holds the locks, optionally qualified by its schema,
		 * such as "locks.lock_store": an unquoted SQL identifier of letters, digits and
		 * '_'.
		 */
		private String tableName = "lock_store";

		/**
		 * Longest time a lock operation waits for the database before it fails. Bounds
		 * each statement through the connection's network timeout (a query timeout on
		 * H2); waiting for a pooled connection is bounded by the pool.
		 */
		private Duration timeout = Duration.ofSeconds(2);

		/**
		 * When to create the lock table, its index and its fencing sequence at startup
		 * (if they do not exist): for an embedded database only, always, or never.
		 */
		private DatabaseInitialization initializeSchema = DatabaseInitialization.EMBEDDED;

		/**
		 * Time between two clean-ups of rows whose lock and result expired more than a
		 * minute ago, deleted in small batches on a background thread. Zero or negative
		 * turns the clean-up off.
		 */
		private Duration cleanupInterval = Duration.ofMinutes(1);

		public String getTableName() {
			return this.tableName;
		}

		public void setTableName(String tableName) {
			this.tableName = tableName;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public DatabaseInitialization getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(DatabaseInitialization initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public Duration getCleanupInterval() {
			return this.cleanupInterval;
		}

		public void setCleanupInterval(Duration cleanupInterval) {
			this.cleanupInterval = cleanupInterval;
		}

		void validate() {
			// The JDBC store's own pattern, repeated here: its module is optional
			if (this.tableName == null
					|| !this.tableName.matches("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,47}")) {
				throw new InvalidConfigurationPropertyValueException("lock.jdbc.table-name", this.tableName,
						"The table name must be an unquoted SQL identifier (letters, digits and '_', not starting "
								+ "with a digit, at most 48 characters), optionally qualified by a schema, such as "
								+ "lock_store or locks.lock_store.");
			}
			if (!isPositive(this.timeout)) {
				throw new InvalidConfigurationPropertyValueException("lock.jdbc.timeout", this.timeout,
						"The timeout must be positive.");
			}
		}

		/**
		 * When to initialize the lock table, as Spring Boot's spring.sql.init.mode and
		 * spring.session.jdbc.initialize-schema do.
		 */
		public enum DatabaseInitialization {

			/**
			 * Only when the DataSource is an embedded database, such as H2 in memory.
			 */
			EMBEDDED,

			/**
			 * Always: the DDL only creates what does not exist.
			 */
			ALWAYS,

			/**
			 * Never: create the table with the module's schema script.
			 */
			NEVER

		}

	}

	/**
	 * Actuator properties.
	 */
	public static class Actuator {

		/**
		 * Whether the locks endpoint shows the key of each held lock. Keys are built from
		 * method arguments, such as user names, so they are hidden by default.
		 */
		private boolean showKeys;

		public boolean isShowKeys() {
			return this.showKeys;
		}

		public void setShowKeys(boolean showKeys) {
			this.showKeys = showKeys;
		}

	}

	private static boolean isPositive(Duration duration) {
		return !duration.isZero() && !duration.isNegative();
	}

}
