package dev.lockstarter.autoconfigure;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.lockstarter.autoconfigure.LockProperties.Store;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The Redis lock store: chosen with {@code lock.store=redis}, and when {@code lock.store}
 * is not set and the application has a {@link RedisConnectionFactory}. A
 * {@link RedisLockStore} on that connection factory, or a startup failure that names what
 * is missing.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(LockStore.class)
@ConditionalOnProperty(name = "lock.store", havingValue = "redis", matchIfMissing = true)
class RedisLockStoreConfiguration {

	private static final Log logger = LogFactory.getLog(RedisLockStoreConfiguration.class);

	private static final String STORE_CLASS = "dev.lockstarter.store.redis.RedisLockStore";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { STORE_CLASS, "org.springframework.data.redis.connection.RedisConnectionFactory" })
	static class StoreAvailable {

		private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
				StoreAvailable.class.getClassLoader());

		@Bean
		@ConditionalOnBean(RedisConnectionFactory.class)
		RedisLockStore redisLockStore(RedisConnectionFactory connectionFactory, LockProperties properties) {
			String prefix = properties.getKeyPrefix();
			if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
				throw new InvalidConfigurationPropertyValueException("lock.key-prefix", prefix,
						"The Redis lock store puts the part of each key after the prefix in a Redis Cluster hash tag "
								+ "('{...}'), so the prefix must not contain '{' or '}'.");
			}
			LockProperties.Redis redis = properties.getRedis();
			if (redis.getMinReplicaAcks() > 0 && isCluster(connectionFactory)) {
				throw new InvalidConfigurationPropertyValueException("lock.redis.min-replica-acks",
						redis.getMinReplicaAcks(), "Waiting for replica acknowledgements is not supported on Redis "
								+ "Cluster; set it to 0, or use a primary with replicas (Sentinel).");
			}
			logger.info("Using the Redis lock store" + commandTimeout(connectionFactory)
					+ ((redis.getMinReplicaAcks() > 0)
							? "; each acquisition waits up to " + redis.getReplicaAckTimeout() + " for "
									+ redis.getMinReplicaAcks() + " replica acknowledgement(s)"
							: ""));
			RedisLockStore store = new RedisLockStore(connectionFactory, prefix, prefix + "released");
			store.setMinReplicaAcks(redis.getMinReplicaAcks());
			store.setReplicaAckTimeout(redis.getReplicaAckTimeout());
			return store;
		}

		@Bean
		@ConditionalOnBean(RedisConnectionFactory.class)
		RedisEvictionPolicyCheck redisEvictionPolicyCheck(RedisConnectionFactory connectionFactory) {
			return new RedisEvictionPolicyCheck(connectionFactory);
		}

		private static boolean isCluster(RedisConnectionFactory connectionFactory) {
			return LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce
					&& lettuce.isClusterAware();
		}

		private static String commandTimeout(RedisConnectionFactory connectionFactory) {
			if (LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce) {
				Duration timeout = lettuce.getClientConfiguration().getCommandTimeout();
				return "; a lock operation on an unresponsive Redis fails after " + timeout
						+ " (spring.data.redis.timeout)";
			}
			return "";
		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnProperty(name = "lock.store", havingValue = "redis")
		@ConditionalOnMissingBean(RedisConnectionFactory.class)
		static class ConnectionFactoryMissing {

			@Bean
			LockStore unavailableRedisLockStore() {
				throw new InvalidConfigurationPropertyValueException("lock.store", "redis",
						"No RedisConnectionFactory is available. Add spring-boot-starter-data-redis and configure "
								+ "spring.data.redis.*, or set lock.store=memory for a single instance.");
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(name = "lock.store", havingValue = "redis")
	@ConditionalOnMissingClass(STORE_CLASS)
	static class StoreModuleMissing {

		@Bean
		LockStore unavailableRedisLockStore() {
			throw LockStoreConfigurations.storeModuleMissing(Store.REDIS, "lock-store-redis");
		}

	}

}
