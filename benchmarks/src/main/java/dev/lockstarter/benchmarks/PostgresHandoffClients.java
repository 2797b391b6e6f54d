package dev.lockstarter.benchmarks;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;

import dev.lockstarter.store.jdbc.JdbcLockStore;
import dev.lockstarter.test.postgres.PostgresServer;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The waiting locks on PostgreSQL whose handoff {@link HandoffLatency} measures, each set
 * up as in {@link PostgresPeerCycles} on a HikariCP pool of its own, and the reference of
 * one round trip to the server. The tables are created once, by {@link #createTables},
 * before any client opens.
 */
final class PostgresHandoffClients {

	/** ShedLock's table, as its documentation gives it for PostgreSQL. */
	static final String SHEDLOCK_TABLE = "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL, "
			+ "lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, "
			+ "PRIMARY KEY (name))";

	/** How often the ShedLock waiter tries again: ShedLock itself never waits. */
	static final Duration SHEDLOCK_RETRY = Duration.ofMillis(100);

	/**
	 * The connections of each client's pool: a waiting client uses two at most (the
	 * store's acquisition and its listening connection), and a run opens a holder and a
	 * waiter for every lock on one server, whose {@code max_connections} (60) pools of
	 * {@link PostgresPeerCycles#POOL_SIZE} would exceed once HikariCP fills them.
	 */
	static final int POOL_SIZE = 3;

	private PostgresHandoffClients() {
	}

	/**
	 * Create this starter's, Spring Integration's and ShedLock's tables on a fresh
	 * server.
	 * @param server the server
	 */
	static void createTables(PostgresServer server) {
		try (HikariDataSource dataSource = dataSource(server.host(), server.port())) {
			new JdbcLockStore(dataSource).createSchema();
			PostgresPeerCycles.runScript(dataSource, "org/springframework/integration/jdbc/schema-postgresql.sql",
					"INT_LOCK");
			PostgresPeerCycles.execute(dataSource, SHEDLOCK_TABLE);
		}
	}

	/**
	 * This starter's {@code LockTemplate} on the store that {@code JdbcLockStore.create}
	 * picks on PostgreSQL: woken by {@code LISTEN}/{@code NOTIFY}, polling as a safety
	 * net.
	 * @param host the server's host
	 * @param port its port
	 * @return the client
	 */
	static HandoffLock.StarterClient starter(String host, int port) {
		HikariDataSource dataSource = dataSource(host, port);
		JdbcLockStore store = JdbcLockStore.create(dataSource, JdbcLockStore.DEFAULT_TABLE_NAME,
				JdbcLockStore.DEFAULT_TIMEOUT);
		return new HandoffLock.StarterClient(store, () -> {
			store.close();
			dataSource.close();
		});
	}

	static HikariDataSource dataSource(String host, int port) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:postgresql://" + host + ":" + port + "/" + PostgresServer.DATABASE);
		config.setUsername(PostgresServer.USER);
		config.setMaximumPoolSize(POOL_SIZE);
		return new HikariDataSource(config);
	}

	/**
	 * Spring Integration's {@code JdbcLockRegistry} on {@code DefaultLockRepository},
	 * with its defaults: {@code tryLock(wait)} tries the repository again every 100 ms.
	 */
	static final class SpringIntegration implements HandoffLock.Client {

		private final HikariDataSource dataSource;

		private final DefaultLockRepository repository;

		private final JdbcLockRegistry registry;

		private final Map<String, Lock> locks = new HashMap<>();

		SpringIntegration(String host, int port) {
			this.dataSource = dataSource(host, port);
			this.repository = new DefaultLockRepository(this.dataSource);
			this.repository.setTransactionManager(new DataSourceTransactionManager(this.dataSource));
			this.repository.afterPropertiesSet();
			this.repository.afterSingletonsInstantiated();
			this.registry = new JdbcLockRegistry(this.repository, HandoffLock.TTL);
		}

		@Override
		public void lock(String key) throws InterruptedException {
			Lock lock = this.registry.obtain(key);
			if (!lock.tryLock(HandoffLock.MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException(
						"JdbcLockRegistry did not acquire " + key + " within " + HandoffLock.MAX_WAIT);
			}
			this.locks.put(key, lock);
		}

		@Override
		public void unlock(String key) {
			this.locks.remove(key).unlock();
		}

		@Override
		public void close() {
			this.repository.close();
			this.dataSource.close();
		}

	}

	/**
	 * ShedLock's {@code JdbcTemplateLockProvider} ({@code usingDbTime()}). ShedLock has
	 * no waiting: a lock it refuses is skipped. The waiter calls {@code lock()} again
	 * every {@link #SHEDLOCK_RETRY} until it gets the lock, as an application that wants
	 * to wait would.
	 */
	static final class ShedLock implements HandoffLock.Client {

		private final HikariDataSource dataSource;

		private final JdbcTemplateLockProvider provider;

		private final Map<String, SimpleLock> locks = new HashMap<>();

		ShedLock(String host, int port) {
			this.dataSource = dataSource(host, port);
			this.provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
				.withJdbcTemplate(new JdbcTemplate(this.dataSource))
				.usingDbTime()
				.build());
		}

		@Override
		public void lock(String key) throws InterruptedException {
			long deadline = System.nanoTime() + HandoffLock.MAX_WAIT.toNanos();
			while (true) {
				Optional<SimpleLock> lock = this.provider
					.lock(new LockConfiguration(Instant.now(), key, HandoffLock.TTL, Duration.ZERO));
				if (lock.isPresent()) {
					this.locks.put(key, lock.get());
					return;
				}
				if (System.nanoTime() - deadline > 0) {
					throw new IllegalStateException(
							"ShedLock did not acquire " + key + " within " + HandoffLock.MAX_WAIT);
				}
				Thread.sleep(SHEDLOCK_RETRY.toMillis());
			}
		}

		@Override
		public void unlock(String key) {
			this.locks.remove(key).unlock();
		}

		@Override
		public void close() {
			this.dataSource.close();
		}

	}

	/**
	 * The reference: one {@code SELECT 1} on an open connection, timed in the holder's
	 * JVM as {@link HandoffLatency} times a handoff, after the same pause. Its
	 * {@code lock} is the round trip, and {@code unlock} does nothing.
	 */
	static final class RoundTrip implements HandoffLock.Client {

		private final HikariDataSource dataSource;

		private final Connection connection;

		RoundTrip(String host, int port) {
			this.dataSource = dataSource(host, port);
			try {
				this.connection = this.dataSource.getConnection();
			}
			catch (SQLException ex) {
				this.dataSource.close();
				throw new IllegalStateException("No connection to PostgreSQL", ex);
			}
		}

		@Override
		public void lock(String key) throws SQLException {
			try (Statement statement = this.connection.createStatement()) {
				statement.execute("SELECT 1");
			}
		}

		@Override
		public void unlock(String key) {
		}

		@Override
		public void close() {
			try {
				this.connection.close();
			}
			catch (SQLException ex) {
				// Closed with the pool
			}
			this.dataSource.close();
		}

	}

	/**
	 * The second reference: one uncontended acquisition of a free key on
	 * {@code JdbcLockStore}, the store's own round trip (its acquiring statement, in a
	 * transaction of its own), timed in the holder's JVM; the release after it is not
	 * timed.
	 */
	static final class AcquireRoundTrip implements HandoffLock.Client {

		private final HikariDataSource dataSource;

		private final JdbcLockStore store;

		private final String token = java.util.UUID.randomUUID().toString();

		AcquireRoundTrip(String host, int port) {
			this.dataSource = dataSource(host, port);
			this.store = new JdbcLockStore(this.dataSource);
		}

		@Override
		public void lock(String key) {
			if (!this.store.tryAcquire(key, this.token, HandoffLock.TTL).isAcquired()) {
				throw new IllegalStateException("The reference found " + key + " held");
			}
		}

		@Override
		public void unlock(String key) {
			this.store.release(key, this.token);
		}

		@Override
		public void close() {
			this.store.close();
			this.dataSource.close();
		}

	}

}
