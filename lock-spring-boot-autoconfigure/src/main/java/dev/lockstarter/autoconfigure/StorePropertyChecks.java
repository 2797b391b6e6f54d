package dev.lockstarter.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * The checks of {@code lock.*} properties against the limits of the store that uses them:
 * the only checks that need more than one group of properties. Each group checks its own
 * values when it is bound; the store configurations call these before they build their
 * store, and each failure names the property to fix.
 */
final class StorePropertyChecks {

	private StorePropertyChecks() {
	}

	/**
	 * Check the properties that the Redis lock store constrains.
	 * @param properties the lock properties
	 * @param redis the Redis lock store properties
	 * @param cluster whether the connection factory is a Redis Cluster one
	 */
	static void checkRedis(LockProperties properties, RedisLockStoreProperties redis, boolean cluster) {
		String prefix = properties.getKeyPrefix();
		if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			throw new InvalidConfigurationPropertyValueException("lock.key-prefix", prefix,
					"The Redis lock store puts the part of each key after the prefix in a Redis Cluster hash tag "
							+ "('{...}'), so the prefix must not contain '{' or '}'.");
		}
		if (redis.getMinReplicaAcks() > 0 && cluster) {
			throw new InvalidConfigurationPropertyValueException("lock.redis.min-replica-acks",
					redis.getMinReplicaAcks(), "Waiting for replica acknowledgements is not supported on Redis "
							+ "Cluster; set it to 0, or use a primary with replicas (Sentinel).");
		}
	}

	/**
	 * Check the properties that the Memcached lock store constrains.
	 * @param properties the lock properties
	 * @param maxTtl the longest time-to-live of a Memcached lock
	 */
	static void checkMemcached(LockProperties properties, Duration maxTtl) {
		Duration ttl = properties.getTtl();
		if (ttl.compareTo(maxTtl) > 0) {
			throw new InvalidConfigurationPropertyValueException("lock.ttl", ttl,
					"Memcached locks can live at most 30 days less three seconds: Memcached reads longer expiry "
							+ "times as absolute times.");
		}
	}

}
