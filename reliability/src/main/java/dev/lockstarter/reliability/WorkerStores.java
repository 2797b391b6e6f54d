package dev.lockstarter.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.etcd.jetcd.Client;
import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;
import net.rubyeye.xmemcached.exception.MemcachedException;
import org.apache.curator.framework.CuratorFramework;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.dynamodb.DynamoDbLockStore;
import dev.lockstarter.store.etcd.EtcdClients;
import dev.lockstarter.store.etcd.EtcdLockStore;
import dev.lockstarter.store.jdbc.JdbcLockStore;
import dev.lockstarter.store.memcached.MemcachedLockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.store.zookeeper.ZooKeeperClients;
import dev.lockstarter.store.zookeeper.ZooKeeperLockStore;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServer;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * How a worker builds the lock store of a {@link Backend} from the address the harness
 * gives it ({@link StoreUnderTest#address()}), every call bounded by
 * {@link StoreUnderTest#STORE_TIMEOUT}.
 */
final class WorkerStores {

	static final String DYNAMODB_TABLE = "reliability_locks";

	/**
	 * The connections of a worker's pool to PostgreSQL: one per thread of the workload,
	 * and room for the renewals and releases of the lock template's scheduler.
	 */
	static final int JDBC_POOL_SIZE = 8;

	/**
	 * A worker's ZooKeeper session timeout. A lock does not depend on its holder's
	 * session; the session only carries the connection.
	 */
	static final Duration ZOOKEEPER_SESSION_TIMEOUT = Duration.ofSeconds(10);

	private WorkerStores() {
	}

	/**
	 * A store and what to close after it.
	 */
	record Opened(LockStore store, AutoCloseable resources) {
	}

	static Opened open(Backend backend, String address) {
		return open(backend, address, StoreUnderTest.STORE_TIMEOUT);
	}

	/**
	 * Open the store of a backend with another timeout for its calls than the workers'.
	 * @param backend the backend
	 * @param address the store's address
	 * @param timeout the longest a store call waits for an answer
	 * @return the store
	 */
	static Opened open(Backend backend, String address, Duration timeout) {
		return switch (backend) {
			case REDIS -> {
				String[] hostPort = address.split(":");
				LettuceConnectionFactory connections = Oracle.connectionFactory(hostPort[0],
						Integer.parseInt(hostPort[1]), timeout);
				yield redis(connections, timeout);
			}
			case SENTINEL -> {
				yield redis(StoreUnderTest.sentinelConnections(address, timeout), timeout);
			}
			case CLUSTER -> {
				yield redis(StoreUnderTest.clusterConnections(address, timeout), timeout);
			}
			case MEMCACHED -> {
				String[] hostPort = address.split(":");
				MemcachedLockStore store = MemcachedLockStore.create(
						List.of(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]))), timeout, timeout);
				yield new Opened(store, store::destroy);
			}
			case DYNAMODB -> {
				DynamoDbClient client = dynamoDbClient(address, timeout);
				yield new Opened(dynamoDb(client), client::close);
			}
			case JDBC -> {
				HikariDataSource dataSource = jdbcDataSource(address, timeout);
				JdbcLockStore store = jdbc(dataSource, timeout);
				yield new Opened(store, () -> {
					store.close();
					dataSource.close();
				});
			}
			case ZOOKEEPER -> {
				CuratorFramework client = ZooKeeperClients.bounded(address, ZOOKEEPER_SESSION_TIMEOUT, timeout).build();
				client.start();
				ZooKeeperLockStore store = new ZooKeeperLockStore(client, ZooKeeperLockStore.DEFAULT_BASE_PATH, timeout,
						Clock.systemUTC());
				yield new Opened(store, () -> {
					store.close();
					client.close();
				});
			}
			case ETCD -> {
				Client client = EtcdClients.client(timeout, address.split(","));
				EtcdLockStore store = new EtcdLockStore(client, timeout);
				yield new Opened(store, () -> {
					store.close();
					client.close();
				});
			}
		};
	}

	/**
	 * Open the store of a backend as {@link OwnerBlindLockStore}, the negative control
	 * whose release skips the owner check.
	 * @param backend {@link Backend#MEMCACHED} or {@link Backend#DYNAMODB}
	 * @param address the store's address
	 * @return the broken store
	 */
	static Opened openOwnerBlind(Backend backend, String address) {
		Duration timeout = StoreUnderTest.STORE_TIMEOUT;
		if (backend == Backend.MEMCACHED) {
			String[] hostPort = address.split(":");
			XMemcachedClientBuilder builder = new XMemcachedClientBuilder(
					List.of(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]))));
			builder.setCommandFactory(new BinaryCommandFactory());
			builder.setConnectTimeout(timeout.toMillis());
			builder.setOpTimeout(timeout.toMillis());
			MemcachedClient client;
			try {
				client = builder.build();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			LockStore store = new OwnerBlindLockStore(new MemcachedLockStore(client), (key) -> {
				try {
					client.delete(MemcachedLockStore.memcachedKey(key));
				}
				catch (TimeoutException | MemcachedException ex) {
					throw new IllegalStateException("Could not delete " + key, ex);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("Interrupted while deleting " + key, ex);
				}
			});
			return new Opened(store, client::shutdown);
		}
		if (backend == Backend.DYNAMODB) {
			DynamoDbClient client = dynamoDbClient(address, timeout);
			LockStore store = new OwnerBlindLockStore(dynamoDb(client),
					(key) -> client.deleteItem((request) -> request.tableName(DYNAMODB_TABLE)
						.key(Map.of(DynamoDbLockStore.PARTITION_KEY,
								AttributeValue.fromS(DynamoDbLockStore.partitionKey(key))))));
			return new Opened(store, client::close);
		}
		throw new IllegalArgumentException("No owner-blind control on " + backend);
	}

	private static DynamoDbClient dynamoDbClient(String address, Duration timeout) {
		return DynamoDbClient.builder()
			.endpointOverride(URI.create(address))
			.region(Region.of(DynamoDbLocalServer.REGION))
			.credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
			.overrideConfiguration((configuration) -> configuration.apiCallTimeout(timeout))
			.build();
	}

	private static Opened redis(LettuceConnectionFactory connections, Duration timeout) {
		RedisLockStore store = new RedisLockStore(connections);
		store.setTimeout(timeout);
		return new Opened(store, () -> {
			store.destroy();
			connections.destroy();
		});
	}

	static DynamoDbLockStore dynamoDb(DynamoDbClient client) {
		return new DynamoDbLockStore(client, DYNAMODB_TABLE);
	}

	/**
	 * A small connection pool to PostgreSQL (or MariaDB, whose driver the tests have).
	 * Borrowing a connection waits at most the timeout, and so does the driver's
	 * connection attempt; the store bounds each statement by the same timeout (the
	 * connection's network timeout).
	 * @param jdbcUrl the JDBC URL, with the user
	 * @param timeout the longest a connection or a statement waits
	 * @return the started pool
	 */
	static HikariDataSource jdbcDataSource(String jdbcUrl, Duration timeout) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(jdbcUrl);
		config.setMaximumPoolSize(JDBC_POOL_SIZE);
		config.setConnectionTimeout(timeout.toMillis());
		config.setValidationTimeout(timeout.toMillis() / 2);
		if (jdbcUrl.startsWith("jdbc:mariadb:")) {
			// MariaDB's driver counts its connect timeout in milliseconds
			config.addDataSourceProperty("connectTimeout", Long.toString(timeout.toMillis()));
		}
		else {
			config.addDataSourceProperty("connectTimeout", Long.toString(timeout.toSeconds()));
			config.addDataSourceProperty("loginTimeout", Long.toString(timeout.toSeconds()));
		}
		return new HikariDataSource(config);
	}

	static JdbcLockStore jdbc(DataSource dataSource) {
		return jdbc(dataSource, StoreUnderTest.STORE_TIMEOUT);
	}

	private static JdbcLockStore jdbc(DataSource dataSource, Duration timeout) {
		return new JdbcLockStore(dataSource, JdbcLockStore.DEFAULT_TABLE_NAME, timeout);
	}

}
