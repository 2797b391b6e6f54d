package dev.lockstarter.autoconfigure.actuate;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.autoconfigure.DynamoDbLockStoreProperties;
import dev.lockstarter.autoconfigure.EtcdLockStoreProperties;
import dev.lockstarter.autoconfigure.JdbcLockStoreProperties;
import dev.lockstarter.autoconfigure.MemcachedLockStoreProperties;
import dev.lockstarter.autoconfigure.RedisLockStoreProperties;
import dev.lockstarter.autoconfigure.ZooKeeperLockStoreProperties;
import dev.lockstarter.autoconfigure.actuate.LocksEndpoint.StoreDescriptor;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Describes the lock store for the {@link LocksEndpoint}: its kind, its class and its
 * configuration. Settings the store itself reports are always shown; those of the
 * {@code lock.*} properties only when the store was built from them by the store
 * configurations of this module, since a store the application defines itself need not
 * follow them. Credentials are never shown: no password, token, access key or user
 * information of a URL.
 */
final class StoreDescriptions {

	private static final String REDIS_STORE = "dev.lockstarter.store.redis.RedisLockStore";

	/** The classes whose bean methods create the auto-configured stores. */
	private static final Pattern STORE_CONFIGURATION = Pattern
		.compile("dev\\.lockstarter\\.autoconfigure\\.\\w+LockStoreConfiguration(\\$StoreAvailable)?");

	/**
	 * The bean name of the DynamoDB client the store builds when the application has
	 * none.
	 */
	private static final String OWN_DYNAMODB_CLIENT = "lockDynamoDbClient";

	/**
	 * The bean name of the etcd client the store builds when the application has none.
	 */
	private static final String OWN_ETCD_CLIENT = "lockEtcdClient";

	/**
	 * The bean name of the Curator client the store builds when the application has none.
	 */
	private static final String OWN_CURATOR_CLIENT = "lockCuratorFramework";

	private StoreDescriptions() {
	}

	/**
	 * Describe the store.
	 * @param store the store, or {@code null} if there is no single one
	 * @param kind the kind of store
	 * @param keyPrefix the prefix of its keys
	 * @param beanFactory the bean factory the store and its properties come from
	 * @return the description
	 */
	static StoreDescriptor describe(@Nullable LockStore store, String kind, String keyPrefix,
			ConfigurableListableBeanFactory beanFactory) {
		if (store == null) {
			return new StoreDescriptor(kind, "unknown", Map.of());
		}
		Map<String, Object> settings = new LinkedHashMap<>();
		settings.put("keyPrefix", keyPrefix);
		boolean autoConfigured = isAutoConfigured(beanFactory);
		if (isRedis(store)) {
			RedisSettings.describe(store, autoConfigured, beanFactory, settings);
		}
		else if (autoConfigured && "memcached".equals(kind)) {
			MemcachedLockStoreProperties memcached = beanFactory.getBean(MemcachedLockStoreProperties.class);
			settings.put("servers", List.copyOf(memcached.getServers()));
			settings.put("connectTimeout", LocksEndpoint.format(memcached.getConnectTimeout()));
			settings.put("operationTimeout", LocksEndpoint.format(memcached.getOperationTimeout()));
		}
		else if (autoConfigured && "dynamodb".equals(kind)) {
			DynamoDbLockStoreProperties dynamodb = beanFactory.getBean(DynamoDbLockStoreProperties.class);
			settings.put("table", dynamodb.getTable());
			settings.put("createTable", dynamodb.isCreateTable());
			if (beanFactory.containsBean(OWN_DYNAMODB_CLIENT)) {
				settings.put("client", "own");
				settings.put("endpoint", withoutUserInfo(dynamodb.getEndpoint()));
				settings.put("region", (dynamodb.getRegion() != null) ? dynamodb.getRegion() : "from the AWS SDK");
				settings.put("timeout", LocksEndpoint.format(dynamodb.getTimeout()));
			}
			else {
				settings.put("client", "application");
			}
		}
		else if (autoConfigured && "jdbc".equals(kind)) {
			// The table and the bounds only: the DataSource's URL may carry credentials
			JdbcLockStoreProperties jdbc = beanFactory.getBean(JdbcLockStoreProperties.class);
			settings.put("table", jdbc.getTableName());
			settings.put("timeout", LocksEndpoint.format(jdbc.getTimeout()));
			settings.put("initializeSchema", jdbc.getInitializeSchema().name().toLowerCase(Locale.ROOT));
			settings.put("cleanupInterval", LocksEndpoint.format(jdbc.getCleanupInterval()));
		}
		else if (autoConfigured && "etcd".equals(kind)) {
			EtcdLockStoreProperties etcd = beanFactory.getBean(EtcdLockStoreProperties.class);
			settings.put("prefix", etcd.getPrefix());
			settings.put("resultsPrefix", etcd.getResultsPrefix());
			settings.put("timeout", LocksEndpoint.format(etcd.getTimeout()));
			if (beanFactory.containsBean(OWN_ETCD_CLIENT)) {
				settings.put("client", "own");
				settings.put("endpoints",
						etcd.getEndpoints().stream().map(URI::create).map(StoreDescriptions::withoutUserInfo).toList());
				settings.put("authentication", etcd.getUsername() != null);
				settings.put("sslBundle", (etcd.getSsl().getBundle() != null) ? etcd.getSsl().getBundle() : "none");
			}
			else {
				settings.put("client", "application");
			}
		}
		else if (autoConfigured && "zookeeper".equals(kind)) {
			ZooKeeperLockStoreProperties zookeeper = beanFactory.getBean(ZooKeeperLockStoreProperties.class);
			settings.put("basePath", zookeeper.getBasePath());
			settings.put("timeout", LocksEndpoint.format(zookeeper.getTimeout()));
			if (beanFactory.containsBean(OWN_CURATOR_CLIENT)) {
				settings.put("client", "own");
				settings.put("connectString", zookeeper.getConnectString());
				settings.put("sessionTimeout", LocksEndpoint.format(zookeeper.getSessionTimeout()));
				settings.put("authentication", zookeeper.getUsername() != null);
			}
			else {
				settings.put("client", "application");
			}
		}
		return new StoreDescriptor(kind, store.getClass().getName(), settings);
	}

	private static boolean isRedis(LockStore store) {
		return ClassUtils.isPresent(REDIS_STORE, StoreDescriptions.class.getClassLoader())
				&& RedisSettings.isRedis(store);
	}

	/**
	 * Whether the single lock store bean was created by one of this module's store
	 * configurations.
	 */
	static boolean isAutoConfigured(ConfigurableListableBeanFactory beanFactory) {
		String[] names = beanFactory.getBeanNamesForType(LockStore.class, false, false);
		if (names.length != 1 || !beanFactory.containsBeanDefinition(names[0])) {
			return false;
		}
		BeanDefinition definition = beanFactory.getMergedBeanDefinition(names[0]);
		String factoryBean = definition.getFactoryBeanName();
		String source = (factoryBean != null && beanFactory.containsBeanDefinition(factoryBean))
				? beanFactory.getMergedBeanDefinition(factoryBean).getBeanClassName() : definition.getBeanClassName();
		return source != null && STORE_CONFIGURATION.matcher(source).matches();
	}

	/**
	 * Return an endpoint as scheme, host and port only: no user information, path or
	 * query, where credentials could hide.
	 */
	private static String withoutUserInfo(@Nullable URI endpoint) {
		if (endpoint == null) {
			return "of the region";
		}
		return endpoint.getScheme() + "://" + endpoint.getHost()
				+ ((endpoint.getPort() != -1) ? ":" + endpoint.getPort() : "");
	}

	/**
	 * Inner class to allow the optional Redis store and Spring Data Redis.
	 */
	private static final class RedisSettings {

		private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
				RedisSettings.class.getClassLoader());

		static boolean isRedis(LockStore store) {
			return store instanceof RedisLockStore;
		}

		static void describe(LockStore store, boolean autoConfigured, ConfigurableListableBeanFactory beanFactory,
				Map<String, Object> settings) {
			settings.put("channel", ((RedisLockStore) store).getChannel());
			if (!autoConfigured) {
				return;
			}
			RedisLockStoreProperties redis = beanFactory.getBean(RedisLockStoreProperties.class);
			settings.put("minReplicaAcks", redis.getMinReplicaAcks());
			settings.put("replicaAckTimeout", LocksEndpoint.format(redis.getReplicaAckTimeout()));
			// Below a millisecond: not truncated as the other durations
			settings.put("replySpin", ((RedisLockStore) store).getReplySpin().toString());
			RedisConnectionFactory connectionFactory = beanFactory.getBeanProvider(RedisConnectionFactory.class)
				.getIfUnique();
			if (LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce) {
				settings.put("mode", lettuce.isClusterAware() ? "cluster"
						: lettuce.isRedisSentinelAware() ? "sentinel" : "standalone");
				settings.put("commandTimeout",
						LocksEndpoint.format(lettuce.getClientConfiguration().getCommandTimeout()));
			}
		}

	}

}
