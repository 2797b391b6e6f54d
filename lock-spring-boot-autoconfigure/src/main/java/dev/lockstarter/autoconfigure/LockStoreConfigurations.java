package dev.lockstarter.autoconfigure;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.autoconfigure.LockProperties.Store;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * The configuration class of each {@link Store lock store}, in the order in which they
 * are imported, and the store class that tells whether the store's module is on the
 * classpath. Redis comes first, since it may be chosen when {@code lock.store} is not set
 * (see {@link StoreSelection}), and the in-memory store, which is part of the core, last,
 * as the fallback. Every configuration backs off when the application defines its own
 * {@link dev.lockstarter.store.LockStore}.
 */
final class LockStoreConfigurations {

	private static final Map<Store, StoreConfiguration> MAPPINGS;

	static {
		Map<Store, StoreConfiguration> mappings = new LinkedHashMap<>();
		mappings.put(Store.REDIS,
				new StoreConfiguration(RedisLockStoreConfiguration.class, RedisLockStoreConfiguration.STORE_CLASS));
		mappings.put(Store.MEMCACHED, new StoreConfiguration(MemcachedLockStoreConfiguration.class,
				MemcachedLockStoreConfiguration.STORE_CLASS));
		mappings.put(Store.DYNAMODB, new StoreConfiguration(DynamoDbLockStoreConfiguration.class,
				DynamoDbLockStoreConfiguration.STORE_CLASS));
		mappings.put(Store.ETCD,
				new StoreConfiguration(EtcdLockStoreConfiguration.class, EtcdLockStoreConfiguration.STORE_CLASS));
		mappings.put(Store.JDBC,
				new StoreConfiguration(JdbcLockStoreConfiguration.class, JdbcLockStoreConfiguration.STORE_CLASS));
		mappings.put(Store.ZOOKEEPER, new StoreConfiguration(ZooKeeperLockStoreConfiguration.class,
				ZooKeeperLockStoreConfiguration.STORE_CLASS));
		mappings.put(Store.MEMORY, new StoreConfiguration(InMemoryLockStoreConfiguration.class, null));
		Assert.state(mappings.keySet().containsAll(List.of(Store.values())), "Every lock store needs a configuration");
		MAPPINGS = Collections.unmodifiableMap(mappings);
	}

	private LockStoreConfigurations() {
	}

	/**
	 * Return the names of the store configuration classes, in import order, followed by
	 * the configuration that fails startup when {@code lock.store} must be set.
	 * @return the class names
	 */
	static String[] configurationClassNames() {
		return Stream
			.concat(MAPPINGS.values().stream().map(StoreConfiguration::configurationClass),
					Stream.of(StoreSelection.StoreNotSelectedConfiguration.class))
			.map(Class::getName)
			.toArray(String[]::new);
	}

	/**
	 * Return the stores whose module is on the classpath, in import order: every store
	 * but the in-memory one, which is part of the core.
	 * @param classLoader the class loader to look in
	 * @return the stores whose store class is present
	 */
	static List<Store> storeModules(@Nullable ClassLoader classLoader) {
		return MAPPINGS.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().isPresent(classLoader))
			.map(Map.Entry::getKey)
			.toList();
	}

	/**
	 * Return the value of {@code lock.store} that selects the store.
	 * @param store the store
	 * @return its property value, such as {@code redis}
	 */
	static String propertyValue(Store store) {
		return store.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * Return the coordinates of the module of a store other than the in-memory one.
	 * @param store the store
	 * @return its module's group and artifact, such as
	 * {@code dev.lockstarter:lock-store-redis}
	 */
	static String module(Store store) {
		return "dev.lockstarter:lock-store-" + propertyValue(store);
	}

	/**
	 * Return the startup failure for a store selected with {@code lock.store} whose
	 * module is not on the classpath. Every store reports it the same way.
	 * @param store the selected store
	 * @param artifactId the artifact of the store's module (it brings the store's client)
	 * @return the exception to throw from the store's bean method
	 */
	static InvalidConfigurationPropertyValueException storeModuleMissing(Store store, String artifactId) {
		String value = propertyValue(store);
		return new InvalidConfigurationPropertyValueException("lock.store", value,
				"The " + value + " lock store is not on the classpath. Add the dependency dev.lockstarter:" + artifactId
						+ ", which brings the store and its client, or choose another lock.store.");
	}

	/**
	 * A store's configuration class, and the class of its store when the store comes in a
	 * module of its own.
	 *
	 * @param configurationClass the configuration class
	 * @param storeClass the name of the store class, {@code null} for the in-memory store
	 */
	private record StoreConfiguration(Class<?> configurationClass, @Nullable String storeClass) {

		boolean isPresent(@Nullable ClassLoader classLoader) {
			return this.storeClass != null && ClassUtils.isPresent(this.storeClass, classLoader);
		}

	}

}
