package dev.lockstarter.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;

/**
 * The in-memory lock store: chosen with {@code lock.store=memory}, and the fallback when
 * {@code lock.store} is not set and no store module but Redis, if any, is on the
 * classpath, and the Redis store was not configured (see {@link StoreSelection}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(LockStore.class)
@Conditional(StoreSelection.OnMemoryStore.class)
class InMemoryLockStoreConfiguration {

	private static final Log logger = LogFactory.getLog(InMemoryLockStoreConfiguration.class);

	@Bean
	InMemoryLockStore inMemoryLockStore(LockProperties properties, InMemoryLockStoreProperties memory,
			ResourceLoader resourceLoader) {
		if (properties.getStore() == null) {
			logger.warn("lock.store is not set; using the in-memory lock store because "
					+ StoreSelection.memoryReason(LockStoreConfigurations.storeModules(resourceLoader.getClassLoader()))
					+ ". It does not share locks between application instances: set lock.store=memory to confirm "
					+ "this choice, or add a store module and select it with lock.store.");
		}
		else {
			logger.info("Using the in-memory lock store; locks are not shared between application instances");
		}
		return new InMemoryLockStore(memory.getMaxEntries());
	}

}
