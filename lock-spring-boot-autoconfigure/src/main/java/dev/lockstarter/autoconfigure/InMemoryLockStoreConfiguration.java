package dev.lockstarter.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The in-memory lock store: chosen with {@code lock.store=memory}, and the fallback when
 * {@code lock.store} is not set and no other store was configured.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(LockStore.class)
@ConditionalOnProperty(name = "lock.store", havingValue = "memory", matchIfMissing = true)
class InMemoryLockStoreConfiguration {

	private static final Log logger = LogFactory.getLog(InMemoryLockStoreConfiguration.class);

	@Bean
	InMemoryLockStore inMemoryLockStore(LockProperties properties, InMemoryLockStoreProperties memory) {
		if (properties.getStore() == null) {
			logger.warn(
					"No Redis lock store (it needs dev.lockstarter:lock-store-redis and a RedisConnectionFactory): using the in-memory lock store, which does not "
							+ "share locks between application instances. Set lock.store=memory to confirm this "
							+ "choice, or configure Redis.");
		}
		else {
			logger.info("Using the in-memory lock store; locks are not shared between application instances");
		}
		return new InMemoryLockStore(memory.getMaxEntries());
	}

}
