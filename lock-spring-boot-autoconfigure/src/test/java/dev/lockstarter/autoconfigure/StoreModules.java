package dev.lockstarter.autoconfigure;

import java.util.List;

import dev.lockstarter.store.dynamodb.DynamoDbLockStore;
import dev.lockstarter.store.etcd.EtcdLockStore;
import dev.lockstarter.store.jdbc.JdbcLockStore;
import dev.lockstarter.store.memcached.MemcachedLockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.store.zookeeper.ZooKeeperLockStore;
import org.springframework.boot.test.context.FilteredClassLoader;

/**
 * Class loaders that show some of the store modules of this module's test classpath only,
 * for the tests of the store chosen when {@code lock.store} is not set.
 */
final class StoreModules {

	private static final List<Class<?>> STORE_CLASSES = List.of(RedisLockStore.class, MemcachedLockStore.class,
			DynamoDbLockStore.class, EtcdLockStore.class, JdbcLockStore.class, ZooKeeperLockStore.class);

	private StoreModules() {
	}

	/**
	 * Return a class loader that hides every store module but those of the given store
	 * classes.
	 * @param storeClasses the store classes of the modules to keep
	 * @return the class loader
	 */
	static FilteredClassLoader only(Class<?>... storeClasses) {
		List<Class<?>> kept = List.of(storeClasses);
		return new FilteredClassLoader(
				STORE_CLASSES.stream().filter((storeClass) -> !kept.contains(storeClass)).toArray(Class<?>[]::new));
	}

	/**
	 * Return a class loader that hides every store module.
	 * @return the class loader
	 */
	static FilteredClassLoader none() {
		return only();
	}

}
