package dev.lockstarter.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.annotation.OnLeaseLost;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.interceptor.ExclusiveRequestAdvisor;
import dev.lockstarter.interceptor.StoreFailurePolicy;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

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
	 * Lock store to use. Required when a store module other than Redis is on the
	 * classpath. Otherwise defaults to Redis when its module is on the classpath and a
	 * RedisConnectionFactory is available, and to the in-memory store otherwise.
	 */
	private @Nullable Store store;

	/**
	 * Time-to-live of a lock whose @ExclusiveRequest sets none: the longest time a
	 * crashed holder can block its key. At least 1ms.
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
	 * Share of a lock's time-to-live, counted back from its end, at which a held lock is
	 * lost in this instance unless the store confirmed a renewal sent before it, renewed
	 * or not. Above 0 and at most 0.5.
	 */
	private double lossMargin = 0.1;

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

	/**
	 * What an @ExclusiveRequest or @ExclusiveJob method that declares no onLeaseLost does
	 * when its lease is found lost while it runs: report (a LockLostEvent and a WARN; the
	 * method runs on) or cancel (its thread is interrupted or its subscription cancelled,
	 * and the caller gets a LeaseLostException). Cancel does not apply to methods
	 * returning a CompletionStage nor to single-flight methods.
	 */
	private OnLeaseLost onLeaseLost = OnLeaseLost.REPORT;

	/**
	 * Web error mapping settings.
	 */
	private final Web web = new Web();

	/**
	 * Idempotent request (@IdempotentRequest) settings.
	 */
	@NestedConfigurationProperty
	private final IdempotencyProperties idempotency = new IdempotencyProperties();

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

	public double getLossMargin() {
		return this.lossMargin;
	}

	public void setLossMargin(double lossMargin) {
		this.lossMargin = lossMargin;
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

	public OnLeaseLost getOnLeaseLost() {
		return this.onLeaseLost;
	}

	public void setOnLeaseLost(OnLeaseLost onLeaseLost) {
		this.onLeaseLost = onLeaseLost;
	}

	public Web getWeb() {
		return this.web;
	}

	public IdempotencyProperties getIdempotency() {
		return this.idempotency;
	}

	public Actuator getActuator() {
		return this.actuator;
	}

	@Override
	public void afterPropertiesSet() {
		if (this.ttl.compareTo(LockOptions.MIN_TTL) < 0) {
			throw new InvalidConfigurationPropertyValueException("lock.ttl", this.ttl,
					"The lock time-to-live must be at least 1ms, the shortest that a lock store keeps.");
		}
		PropertyChecks.notNegative("lock.wait-time", this.waitTime, "The wait time must not be negative.");
		PropertyChecks.positive("lock.result-ttl", this.resultTtl, "The result time-to-live must be positive.");
		if (!(this.lossMargin > 0 && this.lossMargin <= 0.5)) {
			throw new InvalidConfigurationPropertyValueException("lock.loss-margin", this.lossMargin,
					"The loss margin is a share of the time-to-live: above 0 and at most 0.5.");
		}
		if (this.onLeaseLost == OnLeaseLost.DEFAULT) {
			throw new InvalidConfigurationPropertyValueException("lock.on-lease-lost", this.onLeaseLost,
					"The lease-lost policy must be report or cancel.");
		}
		this.web.validate();
		if (this.keyPrefix.length() > 150) {
			throw new InvalidConfigurationPropertyValueException("lock.key-prefix", this.keyPrefix,
					"The key prefix must be at most 150 characters long.");
		}
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
		 * Amazon DynamoDB, through the AWS SDK: a lock is taken over once its record
		 * stayed unchanged for its time-to-live, on the contender's monotonic clock.
		 */
		DYNAMODB,

		/**
		 * etcd v3, through jetcd: locks survive the loss of a minority of the members; a
		 * lock is taken over once its revision stayed unchanged for its time-to-live, on
		 * the contender's monotonic clock.
		 */
		ETCD,

		/**
		 * A relational database (PostgreSQL, MariaDB or H2), through the application's
		 * DataSource: expiry is decided by the database's clock.
		 */
		JDBC,

		/**
		 * Apache ZooKeeper 3.6+, through Apache Curator: a lock is taken over once its
		 * node stayed unchanged for its time-to-live, on the contender's monotonic clock,
		 * whatever its holder's session.
		 */
		ZOOKEEPER

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

		/**
		 * HTTP status of the response to a request whose method was cancelled because its
		 * lease was lost while it ran (onLeaseLost = cancel): 503, or 409.
		 */
		private int leaseLostStatus = 503;

		public int getConflictStatus() {
			return this.conflictStatus;
		}

		public void setConflictStatus(int conflictStatus) {
			this.conflictStatus = conflictStatus;
		}

		public int getLeaseLostStatus() {
			return this.leaseLostStatus;
		}

		public void setLeaseLostStatus(int leaseLostStatus) {
			this.leaseLostStatus = leaseLostStatus;
		}

		void validate() {
			if (this.conflictStatus < 400 || this.conflictStatus > 499) {
				throw new InvalidConfigurationPropertyValueException("lock.web.conflict-status", this.conflictStatus,
						"The conflict status must be a 4xx client error status, such as 409 or 422.");
			}
			if (this.leaseLostStatus != 503 && this.leaseLostStatus != 409) {
				throw new InvalidConfigurationPropertyValueException("lock.web.lease-lost-status", this.leaseLostStatus,
						"The lease-lost status must be 503 or 409.");
			}
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

}
