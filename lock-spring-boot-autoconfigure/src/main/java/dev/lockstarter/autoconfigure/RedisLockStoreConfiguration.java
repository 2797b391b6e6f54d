package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.lockstarter.autoconfigure.LockProperties.Store;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The Redis lock store: chosen with {@code lock.store=redis}, and when {@code lock.store}
 * is not set, Redis is the only store module on the classpath and the application has a
 * {@link RedisConnectionFactory} (see {@link StoreSelection}). A {@link RedisLockStore}
 * on that connection factory, or a startup failure that names what is missing.
 * <p>
 * With Lettuce, two customizers of Spring Boot's Lettuce client keep an outage of Redis
 * short for the locks, each switched off by its property:
 * {@link LettuceConnectTimeoutCustomizer}
 * ({@code lock.redis.lettuce.limit-connect-timeout}) and
 * {@link LettuceReconnectDelayCustomizer}
 * ({@code lock.redis.lettuce.limit-reconnect-delay}). They apply to the application's
 * auto-configured Lettuce client as a whole, not only to the locks.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(LockStore.class)
@Conditional(StoreSelection.OnRedisStore.class)
class RedisLockStoreConfiguration {

	private static final Log logger = LogFactory.getLog(RedisLockStoreConfiguration.class);

	static final String STORE_CLASS = "dev.lockstarter.store.redis.RedisLockStore";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { STORE_CLASS, "org.springframework.data.redis.connection.RedisConnectionFactory" })
	static class StoreAvailable {

		private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
				StoreAvailable.class.getClassLoader());

		@Bean
		@ConditionalOnBean(RedisConnectionFactory.class)
		RedisLockStore redisLockStore(RedisConnectionFactory connectionFactory, LockProperties properties,
				RedisLockStoreProperties redis) {
			StorePropertyChecks.checkRedis(properties, redis, isCluster(connectionFactory));
			if (properties.getStore() == null) {
				logger.info("lock.store is not set; using the Redis lock store because a RedisConnectionFactory "
						+ "exists and " + LockStoreConfigurations.module(Store.REDIS)
						+ " is the only lock store module on the classpath");
			}
			String prefix = properties.getKeyPrefix();
			logger.info("Using the Redis lock store" + timeout(connectionFactory, redis.getTimeout())
					+ ((redis.getMinReplicaAcks() > 0)
							? "; each acquisition waits up to " + redis.getReplicaAckTimeout() + " for "
									+ redis.getMinReplicaAcks() + " replica acknowledgement(s)"
							: ""));
			RedisLockStore store = new RedisLockStore(connectionFactory, prefix, prefix + "released");
			store.setTimeout(redis.getTimeout());
			store.setMinReplicaAcks(redis.getMinReplicaAcks());
			store.setReplicaAckTimeout(redis.getReplicaAckTimeout());
			store.setReplySpin(redis.getReplySpin());
			return store;
		}

		@Bean
		@ConditionalOnBean(RedisConnectionFactory.class)
		RedisEvictionPolicyCheck redisEvictionPolicyCheck(RedisConnectionFactory connectionFactory,
				RedisLockStoreProperties redis) {
			return new RedisEvictionPolicyCheck(connectionFactory, redis.getTimeout());
		}

		private static boolean isCluster(RedisConnectionFactory connectionFactory) {
			return LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce
					&& lettuce.isClusterAware();
		}

		private static String timeout(RedisConnectionFactory connectionFactory, Duration timeout) {
			if (LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory) {
				return "; a lock operation fails when Redis does not answer within " + timeout
						+ " (lock.redis.timeout)";
			}
			return "; lock operations are bounded by the connection factory's own timeouts "
					+ "(lock.redis.timeout applies with Lettuce only)";
		}

		/**
		 * The customizers of Spring Boot's Lettuce client.
		 */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(name = { "io.lettuce.core.RedisClient",
				"org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer" })
		static class LettuceCustomizers {

			@Bean
			@ConditionalOnBooleanProperty(name = "lock.redis.lettuce.limit-connect-timeout", matchIfMissing = true)
			@Conditional(ConnectTimeoutNotSet.class)
			LettuceConnectTimeoutCustomizer lockLettuceConnectTimeoutCustomizer(RedisLockStoreProperties redis) {
				return new LettuceConnectTimeoutCustomizer(redis.getTimeout());
			}

			@Bean
			@ConditionalOnBooleanProperty(name = "lock.redis.lettuce.limit-reconnect-delay", matchIfMissing = true)
			LettuceReconnectDelayCustomizer lockLettuceReconnectDelayCustomizer() {
				return new LettuceReconnectDelayCustomizer();
			}

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

	/**
	 * Lowers the connect timeout of Spring Boot's Lettuce client to
	 * {@code lock.redis.timeout} (2 seconds by default), from Lettuce's 10 seconds. Only
	 * registered when {@code spring.data.redis.connect-timeout} is not set, and never
	 * raises a shorter timeout. Runs after every other customizer of the client options,
	 * so that their socket options stay and only the connect timeout changes.
	 * <p>
	 * Why: a lock operation waits for at most {@code lock.redis.timeout} anyway, but the
	 * connection attempts behind it (the first one, and Lettuce's reconnections after an
	 * outage) each hold up recovery for as long as they run. Logs at INFO what it
	 * changed. Switched off with {@code lock.redis.lettuce.limit-connect-timeout=false}.
	 */
	static final class LettuceConnectTimeoutCustomizer implements LettuceClientOptionsBuilderCustomizer, Ordered {

		private final Duration timeout;

		LettuceConnectTimeoutCustomizer(Duration timeout) {
			this.timeout = timeout;
		}

		Duration getTimeout() {
			return this.timeout;
		}

		@Override
		public void customize(ClientOptions.Builder builder) {
			SocketOptions socket = builder.build().getSocketOptions();
			Duration current = socket.getConnectTimeout();
			if (current.compareTo(this.timeout) > 0) {
				builder.socketOptions(socket.mutate().connectTimeout(this.timeout).build());
				logger.info("Lettuce's connect timeout lowered from " + current + " to " + this.timeout
						+ " (lock.redis.timeout), as spring.data.redis.connect-timeout is not set; "
						+ "set lock.redis.lettuce.limit-connect-timeout=false to keep it");
			}
		}

		@Override
		public int getOrder() {
			return Ordered.LOWEST_PRECEDENCE;
		}

	}

	/**
	 * Caps the delay between the reconnection attempts of Spring Boot's Lettuce client at
	 * {@value #MAX_DELAY_MILLIS} ms: Lettuce doubles it from 1 ms up to 30 seconds, so
	 * after a long outage it may try again only 30 seconds after Redis came back, and
	 * every lock operation fails until then. With the cap, locking works again within
	 * about 2 seconds of Redis answering. Only applies when the application defines no
	 * {@link ClientResources} bean; runs before any other customizer of the client
	 * resources, so one that sets its own reconnect delay wins. Logs at INFO that it
	 * applied. Switched off with {@code lock.redis.lettuce.limit-reconnect-delay=false}.
	 */
	static final class LettuceReconnectDelayCustomizer implements ClientResourcesBuilderCustomizer, Ordered {

		static final long MAX_DELAY_MILLIS = 2000;

		@Override
		public void customize(ClientResources.Builder builder) {
			builder.reconnectDelay(
					Delay.exponential(Duration.ZERO, Duration.ofMillis(MAX_DELAY_MILLIS), 2, TimeUnit.MILLISECONDS));
			logger.info("Lettuce's delay between reconnection attempts capped at " + MAX_DELAY_MILLIS
					+ " ms for the Redis lock store; set lock.redis.lettuce.limit-reconnect-delay=false to keep "
					+ "Lettuce's default");
		}

		@Override
		public int getOrder() {
			return Ordered.HIGHEST_PRECEDENCE;
		}

	}

	/**
	 * Matches when {@code spring.data.redis.connect-timeout} is not set.
	 */
	static class ConnectTimeoutNotSet extends NoneNestedConditions {

		ConnectTimeoutNotSet() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnProperty(name = "spring.data.redis.connect-timeout")
		static class ConnectTimeoutSet {

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
