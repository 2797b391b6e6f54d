package dev.lockstarter.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.interceptor.ExclusiveRequestAdvisor;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
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
	 * Lock store to use. Defaults to Redis when a RedisConnectionFactory is available, and to
	 * the in-memory store otherwise.
	 */
	private @Nullable Store store;

	/**
	 * Time-to-live of a lock whose @ExclusiveRequest sets none: the longest time a crashed
	 * holder can block its key.
	 */
	private Duration ttl = Duration.ofSeconds(30);

	/**
	 * How long a call waits for a held lock before it is rejected, when its @ExclusiveRequest
	 * sets no wait time. Zero rejects at once.
	 */
	private Duration waitTime = Duration.ZERO;

	/**
	 * Whether to extend held locks before they expire, for as long as the guarded method runs.
	 */
	private boolean renew = true;

	/**
	 * Longest time a lock is renewed while its method runs, so that a hung method cannot hold
	 * it forever. Zero or negative means no limit.
	 */
	private Duration maxHold = Duration.ofMinutes(10);

	/**
	 * Prefix of every lock key in the store.
	 */
	private String keyPrefix = "lock:";

	/**
	 * Order of the @ExclusiveRequest advice among other advice. The default places the lock
	 * outside @Transactional, so it is released after the commit.
	 */
	private int order = ExclusiveRequestAdvisor.DEFAULT_ORDER;

	private final Web web = new Web();

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

	/**
	 * Return the lock options of an @ExclusiveRequest that sets none of its own.
	 * @return the default options
	 */
	public LockOptions toDefaultOptions() {
		boolean limited = !this.maxHold.isZero() && !this.maxHold.isNegative();
		return LockOptions.ttl(this.ttl)
			.withWaitTime(this.waitTime)
			.withRenewal(this.renew)
			.withMaxHold(limited ? this.maxHold : null);
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
		int status = this.web.getConflictStatus();
		if (status < 400 || status > 499) {
			throw new InvalidConfigurationPropertyValueException("lock.web.conflict-status", status,
					"The conflict status must be a 4xx client error status, such as 409 or 422.");
		}
		if (this.keyPrefix.length() > 150) {
			throw new InvalidConfigurationPropertyValueException("lock.key-prefix", this.keyPrefix,
					"The key prefix must be at most 150 characters long.");
		}
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
		MEMORY

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

}
