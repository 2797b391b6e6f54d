package dev.lockstarter.autoconfigure.actuate;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.autoconfigure.LockProperties;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the lock store's health indicator, contributed as
 * {@code lockStore} and turned off with
 * {@code management.health.lockstore.enabled=false}. For the Redis store it reports
 * lock-specific settings and leaves reachability to Spring Boot's {@code redis}
 * indicator; for the other stores it acquires and releases a probe lock.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnClass(name = { "org.springframework.boot.health.contributor.HealthIndicator",
		"org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator" })
@ConditionalOnBooleanProperty(name = "lock.enabled", matchIfMissing = true)
@ConditionalOnBean(LockStore.class)
@ConditionalOnEnabledHealthIndicator("lockstore")
public final class LockStoreHealthContributorAutoConfiguration {

	private static final String REDIS_STORE = "dev.lockstarter.store.redis.RedisLockStore";

	/**
	 * Redis: the eviction policy and the state of the release notifications, without a
	 * probe.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { REDIS_STORE, "org.springframework.data.redis.connection.RedisConnectionFactory" })
	@ConditionalOnBean(RedisLockStore.class)
	@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
	static class RedisLockStoreHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = { "lockStoreHealthIndicator", "lockStoreHealthContributor" })
		RedisLockStoreHealthIndicator lockStoreHealthIndicator(RedisLockStore store,
				RedisConnectionFactory connectionFactory) {
			return new RedisLockStoreHealthIndicator(store, connectionFactory);
		}

	}

	/**
	 * Every other store: a probe lock, acquired and released.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(type = REDIS_STORE)
	static class ProbingLockStoreHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = { "lockStoreHealthIndicator", "lockStoreHealthContributor" })
		LockStoreHealthIndicator lockStoreHealthIndicator(LockStore store, ObjectProvider<LockOperations> locks,
				LockProperties properties) {
			LockOperations operations = locks.getIfUnique();
			return new LockStoreHealthIndicator(store, LockStores.kind(store, operations),
					LockStores.keyPrefix(operations, properties));
		}

	}

}
