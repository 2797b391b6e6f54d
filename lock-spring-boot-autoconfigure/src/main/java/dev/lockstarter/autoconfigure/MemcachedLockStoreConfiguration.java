package dev.lockstarter.autoconfigure;

import java.net.InetSocketAddress;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.lockstarter.autoconfigure.LockProperties.Store;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memcached.MemcachedLockStore;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Memcached lock store, selected with {@code lock.store=memcached}: a
 * {@link MemcachedLockStore} with a client of its own, built from
 * {@code lock.memcached.*}, or a startup failure that names the missing module.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "lock.store", havingValue = "memcached")
@ConditionalOnMissingBean(LockStore.class)
class MemcachedLockStoreConfiguration {

	private static final Log logger = LogFactory.getLog(MemcachedLockStoreConfiguration.class);

	static final String STORE_CLASS = "dev.lockstarter.store.memcached.MemcachedLockStore";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = STORE_CLASS)
	static class StoreAvailable {

		@Bean
		MemcachedLockStore memcachedLockStore(LockProperties properties, MemcachedLockStoreProperties memcached) {
			StorePropertyChecks.checkMemcached(properties, MemcachedLockStore.MAX_TTL);
			List<InetSocketAddress> servers = memcached.getServers()
				.stream()
				.map((server) -> new InetSocketAddress(MemcachedLockStoreProperties.host(server),
						MemcachedLockStoreProperties.port(server)))
				.toList();
			logger.info("Using the Memcached lock store on " + String.join(", ", memcached.getServers())
					+ "; a lock operation on an unresponsive server fails after " + memcached.getOperationTimeout()
					+ " (lock.memcached.operation-timeout). Locks are lost when a server evicts them or restarts.");
			return MemcachedLockStore.create(servers, memcached.getConnectTimeout(), memcached.getOperationTimeout());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(STORE_CLASS)
	static class StoreModuleMissing {

		@Bean
		LockStore unavailableMemcachedLockStore() {
			throw LockStoreConfigurations.storeModuleMissing(Store.MEMCACHED, "lock-store-memcached");
		}

	}

}
