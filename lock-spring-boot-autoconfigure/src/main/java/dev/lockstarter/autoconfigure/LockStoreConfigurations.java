package dev.lockstarter.autoconfigure;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.lockstarter.autoconfigure.LockProperties.Store;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.Assert;

/**
 * The configuration class of each {@link Store lock store}, in the order in which they
 * are imported: Redis first, since it is chosen when {@code lock.store} is not set and a
 * {@code RedisConnectionFactory} exists, and the in-memory store last, as the fallback.
 * Every configuration backs off when the application defines its own
 * {@link dev.lockstarter.store.LockStore}.
 */
final class LockStoreConfigurations {

	private static final Map<Store, Class<?>> MAPPINGS;

	static {
		Map<Store, Class<?>> mappings = new LinkedHashMap<>();
		mappings.put(Store.REDIS, RedisLockStoreConfiguration.class);
		mappings.put(Store.MEMCACHED, MemcachedLockStoreConfiguration.class);
		mappings.put(Store.DYNAMODB, DynamoDbLockStoreConfiguration.class);
		mappings.put(Store.ETCD, EtcdLockStoreConfiguration.class);
		mappings.put(Store.JDBC, JdbcLockStoreConfiguration.class);
		mappings.put(Store.ZOOKEEPER, ZooKeeperLockStoreConfiguration.class);
		mappings.put(Store.MEMORY, InMemoryLockStoreConfiguration.class);
		Assert.state(mappings.keySet().containsAll(List.of(Store.values())), "Every lock store needs a configuration");
		MAPPINGS = Collections.unmodifiableMap(mappings);
	}

	private LockStoreConfigurations() {
	}

	/**
	 * Return the names of the store configuration classes, in import order.
	 * @return the class names
	 */
	static String[] configurationClassNames() {
		return MAPPINGS.values().stream().map(Class::getName).toArray(String[]::new);
	}

	/**
	 * Return the startup failure for a store selected with {@code lock.store} whose
	 * module is not on the classpath. Every store reports it the same way.
	 * @param store the selected store
	 * @param artifactId the artifact of the store's module (it brings the store's client)
	 * @return the exception to throw from the store's bean method
	 */
	static InvalidConfigurationPropertyValueException storeModuleMissing(Store store, String artifactId) {
		String value = store.name().toLowerCase(Locale.ROOT);
		return new InvalidConfigurationPropertyValueException("lock.store", value,
				"The " + value + " lock store is not on the classpath. Add the dependency dev.lockstarter:" + artifactId
						+ ", which brings the store and its client, or choose another lock.store.");
	}

}
