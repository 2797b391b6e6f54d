package dev.lockstarter.benchmarks;

import java.time.Duration;
import java.util.List;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.etcd.jetcd.Client;
import org.apache.curator.framework.CuratorFramework;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.etcd.EtcdClients;
import dev.lockstarter.store.etcd.EtcdLockStore;
import dev.lockstarter.store.jdbc.JdbcLockStore;
import dev.lockstarter.store.memcached.MemcachedLockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.store.zookeeper.ZooKeeperLockStore;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServer;
import dev.lockstarter.test.etcd.EtcdServer;
import dev.lockstarter.test.mariadb.MariaDbServer;
import dev.lockstarter.test.memcached.MemcachedServer;
import dev.lockstarter.test.postgres.PostgresServer;
import dev.lockstarter.test.redis.RedisServer;
import dev.lockstarter.test.zookeeper.ZooKeeperServer;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The stores whose crashed-holder takeover {@link TakeoverDelay} measures: how a server
 * of each kind is started (in the measuring JVM's control) and how a store is opened on
 * it, from connection arguments that a child JVM can be given on its command line. Each
 * store's client is set up with the auto-configuration's default timeouts.
 */
enum TakeoverStore {

	/** {@code RedisLockStore}: {@code SET NX PX}, expiry on the server's clock. */
	REDIS("Redis") {
		@Override
		Started start() {
			RedisServer redis = RedisServer.start();
			return new Started(redis, List.of(redis.host(), Integer.toString(redis.port())));
		}

		@Override
		Opened open(List<String> connection) {
			LettuceConnectionFactory connections = Variant.connectionFactory(connection.get(0),
					Integer.parseInt(connection.get(1)));
			RedisLockStore store = new RedisLockStore(connections);
			return new Opened(store, () -> {
				store.destroy();
				connections.destroy();
			});
		}
	},

	/** {@code JdbcLockStore} on PostgreSQL: expiry on the database's clock. */
	POSTGRESQL("PostgreSQL (JDBC)") {
		@Override
		Started start() {
			PostgresServer postgres = PostgresServer.start();
			List<String> connection = List.of(postgres.jdbcUrl(), postgres.username(), "");
			createSchema(connection);
			return new Started(postgres, connection);
		}

		@Override
		Opened open(List<String> connection) {
			return jdbc(connection);
		}
	},

	/** {@code JdbcLockStore} on MariaDB: expiry on the database's clock. */
	MARIADB("MariaDB (JDBC)") {
		@Override
		Started start() {
			MariaDbServer mariaDb = MariaDbServer.start();
			List<String> connection = List.of(mariaDb.jdbcUrl(), mariaDb.username(), mariaDb.password());
			createSchema(connection);
			return new Started(mariaDb, connection);
		}

		@Override
		Opened open(List<String> connection) {
			return jdbc(connection);
		}
	},

	/** {@code EtcdLockStore} on one etcd member. */
	ETCD("etcd") {
		@Override
		Started start() {
			EtcdServer etcd = EtcdServer.start();
			return new Started(etcd, List.of(etcd.endpoint()));
		}

		@Override
		Opened open(List<String> connection) {
			Client client = EtcdClients.client(EtcdPeerCycles.STORE_TIMEOUT, connection.get(0));
			EtcdLockStore store = new EtcdLockStore(client, EtcdPeerCycles.STORE_TIMEOUT);
			return new Opened(store, () -> {
				store.close();
				client.close();
			});
		}
	},

	/** {@code ZooKeeperLockStore} on one standalone ZooKeeper server. */
	ZOOKEEPER("ZooKeeper") {
		@Override
		Started start() {
			ZooKeeperServer zooKeeper = ZooKeeperServer.start();
			return new Started(zooKeeper, List.of(zooKeeper.connectString()));
		}

		@Override
		Opened open(List<String> connection) {
			CuratorFramework curator = ZooKeeperPeerCycles.starterClient(connection.get(0));
			ZooKeeperLockStore store = new ZooKeeperLockStore(curator);
			return new Opened(store, () -> {
				store.close();
				curator.close();
			});
		}
	},

	/** {@code MemcachedLockStore} on one {@code memcached}. */
	MEMCACHED("Memcached") {
		@Override
		Started start() {
			MemcachedServer memcached = MemcachedServer.start();
			return new Started(memcached, List.of(memcached.host(), Integer.toString(memcached.port())));
		}

		@Override
		Opened open(List<String> connection) {
			MemcachedLockStore store = ClockStoreClients.memcached(connection.get(0),
					Integer.parseInt(connection.get(1)));
			return new Opened(store, () -> {
				try {
					store.destroy();
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
		}
	},

	/** {@code DynamoDbLockStore} on DynamoDB Local, which runs in the measuring JVM. */
	DYNAMODB("DynamoDB Local") {
		@Override
		Started start() {
			DynamoDbLocalServer dynamoDb = DynamoDbLocalServer.start();
			String endpoint = dynamoDb.endpoint().toString();
			ClockStoreClients.createDynamoDbTable(endpoint);
			return new Started(dynamoDb, List.of(endpoint));
		}

		@Override
		Opened open(List<String> connection) {
			DynamoDbClient client = ClockStoreClients.dynamoDbClient(connection.get(0));
			return new Opened(ClockStoreClients.dynamoDb(client), client::close);
		}
	};

	private static final Duration JDBC_TIMEOUT = JdbcLockStore.DEFAULT_TIMEOUT;

	private final String description;

	TakeoverStore(String description) {
		this.description = description;
	}

	String description() {
		return this.description;
	}

	/** Start a server of this kind, ready for stores to be opened on it. */
	abstract Started start();

	/**
	 * Open a store on a server of this kind.
	 * @param connection the server's connection arguments, from {@link Started}
	 * @return the store and what closes it
	 */
	abstract Opened open(List<String> connection);

	private static void createSchema(List<String> connection) {
		Opened opened = jdbc(connection);
		try {
			((JdbcLockStore) opened.store()).createSchema();
		}
		finally {
			opened.close();
		}
	}

	private static Opened jdbc(List<String> connection) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(connection.get(0));
		config.setUsername(connection.get(1));
		if (!connection.get(2).isEmpty()) {
			config.setPassword(connection.get(2));
		}
		config.setMaximumPoolSize(4);
		HikariDataSource dataSource = new HikariDataSource(config);
		JdbcLockStore store = new JdbcLockStore(dataSource, JdbcLockStore.DEFAULT_TABLE_NAME, JDBC_TIMEOUT);
		return new Opened(store, () -> {
			store.close();
			dataSource.close();
		});
	}

	/**
	 * A started server.
	 *
	 * @param server what stops it
	 * @param connection its connection arguments
	 */
	record Started(AutoCloseable server, List<String> connection) implements AutoCloseable {

		@Override
		public void close() throws Exception {
			this.server.close();
		}

	}

	/**
	 * An open store.
	 *
	 * @param store the store
	 * @param closing what closes it and its client
	 */
	record Opened(LockStore store, Runnable closing) implements AutoCloseable {

		@Override
		public void close() {
			this.closing.run();
		}

	}

}
