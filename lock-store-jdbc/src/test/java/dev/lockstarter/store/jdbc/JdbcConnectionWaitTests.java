package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.LockStoreException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The wait of a {@link JdbcLockStore} for a connection of its pool, bounded by the
 * store's timeout whatever the pool's own bound: here a pool of one connection that waits
 * 30 s for it, on an in-memory H2 database.
 */
class JdbcConnectionWaitTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	private static final Duration TTL = Duration.ofSeconds(30);

	private HikariDataSource pool;

	private JdbcLockStore store;

	@BeforeEach
	void createStore() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		config.setUsername("sa");
		config.setMaximumPoolSize(1);
		config.setConnectionTimeout(Duration.ofSeconds(30).toMillis());
		this.pool = new HikariDataSource(config);
		this.store = new JdbcLockStore(this.pool, JdbcLockStore.DEFAULT_TABLE_NAME, TIMEOUT);
		this.store.createSchema();
	}

	@AfterEach
	void closePool() {
		this.pool.close();
	}

	@Test
	void aCallWaitsForAConnectionNoLongerThanTheStoresTimeoutAndTheLateConnectionGoesBack() throws Exception {
		String key = "wait:" + UUID.randomUUID();
		try (Connection taken = this.pool.getConnection()) {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockStoreException.class)
				.isThrownBy(() -> this.store.tryAcquire(key, token(), TTL))
				.withMessageContaining("JDBC lock store failed to acquire lock '" + key + "'")
				.withMessageContaining("The DataSource gave no connection within PT1S");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to fail")
				.isGreaterThanOrEqualTo(TIMEOUT)
				.isLessThan(TIMEOUT.plusMillis(900));
		}
		// The pool gives its connection to the request that gave up: it goes back at once
		awaitAllConnectionsIdle();
		assertThat(this.store.tryAcquire(key, token(), TTL).isAcquired()).isTrue();
	}

	@Test
	void manyCallsWhileThePoolHasNoConnectionEachFailInTimeAndLeaveNoConnectionBehind() throws Exception {
		int calls = JdbcConnectionSource.THREADS * 3;
		ExecutorService callers = Executors.newFixedThreadPool(calls);
		try (Connection taken = this.pool.getConnection()) {
			List<Future<Duration>> failures = new ArrayList<>();
			for (int i = 0; i < calls; i++) {
				failures.add(callers.submit(() -> {
					long start = System.nanoTime();
					assertThatExceptionOfType(LockStoreException.class)
						.isThrownBy(() -> this.store.tryAcquire("wait:" + UUID.randomUUID(), token(), TTL));
					return Duration.ofNanos(System.nanoTime() - start);
				}));
			}
			for (Future<Duration> failure : failures) {
				assertThat(failure.get(10, TimeUnit.SECONDS)).as("time to fail of one of %d calls", calls)
					.isLessThan(TIMEOUT.plusMillis(900));
			}
		}
		finally {
			callers.shutdownNow();
		}
		awaitAllConnectionsIdle();
		String key = "wait:" + UUID.randomUUID();
		assertThat(this.store.tryAcquire(key, token(), TTL).isAcquired()).isTrue();
		assertThat(this.store.tryAcquire(key, token(), TTL).isAcquired()).isFalse();
	}

	private void awaitAllConnectionsIdle() {
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.pool.getHikariPoolMXBean().getActiveConnections())
				.as("connections out of the pool")
				.isZero());
	}

	private static String token() {
		return UUID.randomUUID().toString();
	}

}
