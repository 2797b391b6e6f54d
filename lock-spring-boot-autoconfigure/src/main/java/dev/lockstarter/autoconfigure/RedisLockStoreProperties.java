package dev.lockstarter.autoconfigure;

import java.time.Duration;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Configuration properties of the Redis lock store, used with {@code lock.store=redis}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("lock.redis")
public class RedisLockStoreProperties implements InitializingBean {

	/**
	 * Longest time a lock operation waits for Redis before it fails (503 for
	 * an @ExclusiveRequest), whatever spring.data.redis.timeout is. Applies with Lettuce;
	 * with Jedis, the client's own timeouts apply.
	 */
	private Duration timeout = Duration.ofSeconds(2);

	/**
	 * Number of replicas that must acknowledge an acquisition or an extension (WAIT)
	 * before it counts, or else it fails. Zero does not wait. Not supported on Redis
	 * Cluster.
	 */
	private int minReplicaAcks;

	/**
	 * Longest time an acquisition or an extension waits for the replica acknowledgements
	 * of min-replica-acks. Such a call may take this long on top of lock.redis.timeout.
	 */
	private Duration replicaAckTimeout = Duration.ofSeconds(1);

	/**
	 * Longest time a thread spins for Redis's answer before it parks, when it is the only
	 * one of the application waiting for Redis and answers keep coming within this time.
	 * Zero parks at once. Applies with Lettuce, to blocking calls.
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

	@Override
	public void afterPropertiesSet() {
		PropertyChecks.positive("lock.redis.timeout", this.timeout, "The Redis lock store timeout must be positive.");
		if (this.minReplicaAcks < 0) {
			throw new InvalidConfigurationPropertyValueException("lock.redis.min-replica-acks", this.minReplicaAcks,
					"The number of replica acknowledgements must not be negative; 0 turns the wait off.");
		}
		PropertyChecks.positive("lock.redis.replica-ack-timeout", this.replicaAckTimeout,
				"The replica acknowledgement timeout must be positive.");
		PropertyChecks.notNegative("lock.redis.reply-spin", this.replySpin,
				"The reply spin time must not be negative; 0 turns spinning off.");
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
		 * Whether to cap Lettuce's delay between reconnection attempts at 2 seconds (it
		 * grows to 30 seconds by default), so that locking works again within seconds of
		 * Redis answering after an outage. Applies when the application defines no
		 * ClientResources bean.
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
