package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.contract.LockStoreContractTests;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@link LockStoreContractTests} for {@link JdbcLockStore} against a real database server
 * (durable: locks survive a restart), through a HikariCP pool, and the JDBC store's own
 * promises that hold on every server: expiry on the database's clock, fencing tokens from
 * a sequence, clean-up, transactions, table names, and bounded failures.
 */
abstract class ServerJdbcLockStoreContractTests extends LockStoreContractTests implements JdbcInspectionContract {

	static final Duration TTL = Duration.ofSeconds(30);

	/**
	 * Return the shared store of the test class, on the server.
	 * @return the registered extension
	 */
	abstract SharedJdbcStore jdbc();

	/**
	 * Return the server.
	 * @return the server, as the tests see it
	 */
	abstract TestDatabase database();

	@Override
	protected LockStore createStore() {
		return jdbc().store();
	}

	@Override
	public JdbcLockStore inspectedStore() {
		return jdbc().store();
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

	@Override
	protected void restartServer() {
		database().restart();
	}

	@Override
	protected boolean locksSurviveServerRestart() {
		return true;
	}

	HikariDataSource dataSource() {
		return jdbc().dataSource();
	}

	@Test
	void expiryIsKeptAndComparedOnTheDatabasesClock() throws SQLException {
		String key = uniqueKey("db-clock");
		String owner = uniqueToken();
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		long remainingMillis = queryLong(
				"SELECT " + database().millisToExpiry() + " FROM lock_store WHERE lock_key = ?", key);
		assertThat(remainingMillis).as("expiry time less the database's clock, ms")
			.isBetween(TTL.toMillis() - 2000, TTL.toMillis());
		// Time passes for the database only: the lock is free at once, whatever the
		// application's clock says
		update("UPDATE lock_store SET expires_at = " + database().before(Duration.ofMillis(1)) + " WHERE lock_key = ?",
				key);
		String next = uniqueToken();
		assertThat(store().tryAcquire(key, next, TTL).isAcquired()).isTrue();
		assertThat(store().release(key, owner)).as("release by the owner whose lock expired").isFalse();
		assertThat(store().release(key, next)).isTrue();
	}

	@Test
	void fencingTokensIncreaseAcrossReleasesTakeoversAndCleanup() throws Exception {
		String key = uniqueKey("fencing");
		String first = uniqueToken();
		long firstToken = store().tryAcquire(key, first, TTL).fencingToken();
		assertThat(firstToken).isPositive();
		assertThat(store().tryAcquire(key, uniqueToken(), TTL).fencingToken()).as("token of a rejected acquisition")
			.isZero();
		assertThat(store().release(key, first)).isTrue();
		long secondToken = store().tryAcquire(key, uniqueToken(), Duration.ofMillis(50)).fencingToken();
		assertThat(secondToken).as("token after a release").isGreaterThan(firstToken);
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> store().timeToExpiry(key).isZero());
		String third = uniqueToken();
		long thirdToken = store().tryAcquire(key, third, TTL).fencingToken();
		assertThat(thirdToken).as("token after taking an expired lock over").isGreaterThan(secondToken);
		assertThat(store().release(key, third)).isTrue();
		// Old enough for the clean-up to delete the row, with its last token
		update("UPDATE lock_store SET expires_at = " + database().before(Duration.ofMinutes(2)) + " WHERE lock_key = ?",
				key);
		jdbc().store().cleanUp();
		assertThat(queryLong("SELECT COUNT(*) FROM lock_store WHERE lock_key = ?", key)).as("rows after the clean-up")
			.isZero();
		long fourthToken = store().tryAcquire(key, uniqueToken(), TTL).fencingToken();
		assertThat(fourthToken).as("token after the row was deleted").isGreaterThan(thirdToken);
	}

	/**
	 * {@code extendAll} in one round trip (on PostgreSQL one statement over arrays, which
	 * carries its server-side bound; elsewhere a batch) extends each lock held by its
	 * token, and only those: a key stored as its hash, a key given twice, a stale token,
	 * an expired lock and a key never taken.
	 */
	@Test
	void extendAllExtendsExactlyTheLocksHeldByTheirTokens() throws SQLException {
		String held = uniqueKey("extend-all");
		String hashed = uniqueKey("extend-all-" + "x".repeat(300));
		String expired = uniqueKey("extend-all-expired");
		String taken = uniqueKey("extend-all-taken");
		String heldToken = uniqueToken();
		String hashedToken = uniqueToken();
		String expiredToken = uniqueToken();
		assertThat(store().tryAcquire(held, heldToken, TTL).isAcquired()).isTrue();
		assertThat(store().tryAcquire(hashed, hashedToken, TTL).isAcquired()).isTrue();
		assertThat(store().tryAcquire(expired, expiredToken, TTL).isAcquired()).isTrue();
		assertThat(store().tryAcquire(taken, uniqueToken(), TTL).isAcquired()).isTrue();
		update("UPDATE lock_store SET expires_at = " + database().before(Duration.ofMillis(1)) + " WHERE lock_key = ?",
				JdbcLockStore.storedKey(expired));
		Duration longer = TTL.multipliedBy(4);
		boolean[] extended = jdbc().store()
			.extendAll(List.of(held, hashed, held, expired, taken, uniqueKey("extend-all-never")),
					List.of(heldToken, hashedToken, heldToken, expiredToken, uniqueToken(), uniqueToken()), longer);
		assertThat(extended).containsExactly(true, true, true, false, false, false);
		for (String key : List.of(held, hashed)) {
			assertThat(store().timeToExpiry(key)).as("time to expiry of %s", key).isGreaterThan(TTL.multipliedBy(3));
		}
		assertThat(store().timeToExpiry(taken)).as("time to expiry of the lock held by another token")
			.isLessThanOrEqualTo(TTL);
		assertThat(store().timeToExpiry(expired)).as("time to expiry of the expired lock").isZero();
	}

	@Test
	void cleanupDeletesOnlyRowsWhoseLockAndResultExpiredAMinuteAgo() throws Exception {
		JdbcLockStore sharedStore = jdbc().store();
		String old = uniqueKey("cleanup-old");
		String recent = uniqueKey("cleanup-recent");
		String withResult = uniqueKey("cleanup-result");
		String held = uniqueKey("cleanup-held");
		for (String key : new String[] { old, recent, withResult, held }) {
			String token = uniqueToken();
			assertThat(sharedStore.tryAcquire(key, token, TTL).isAcquired()).isTrue();
			if (key.equals(withResult)) {
				assertThat(sharedStore.putResult(key, token, new byte[] { 1 }, Duration.ofMinutes(10))).isTrue();
			}
			if (!key.equals(held)) {
				assertThat(sharedStore.release(key, token)).isTrue();
			}
		}
		update("UPDATE lock_store SET expires_at = " + database().before(Duration.ofMinutes(2)) + " WHERE lock_key = ? "
				+ "OR lock_key = ?", old, withResult);
		int deleted = sharedStore.cleanUp();
		assertThat(deleted).isGreaterThanOrEqualTo(1);
		assertThat(queryLong("SELECT COUNT(*) FROM lock_store WHERE lock_key = ?", old)).isZero();
		assertThat(queryLong("SELECT COUNT(*) FROM lock_store WHERE lock_key IN (?, ?, ?)", recent, withResult, held))
			.isEqualTo(3);
		assertThat(sharedStore.getResult(withResult)).containsExactly(1);
	}

	@Test
	void cleanupInBatchesDeletesManyRowsAndRunsOnADaemonThread() throws Exception {
		String prefix = uniqueKey("batch");
		update(database().insertExpiredRows(), prefix);
		JdbcLockStore cleaning = new JdbcLockStore(dataSource());
		try {
			cleaning.startCleanup(Duration.ofMillis(50));
			String remaining = "SELECT COUNT(*) FROM lock_store WHERE lock_key LIKE "
					+ database().parameterFollowedBy("'%'");
			await("the clean-up of the expired rows").atMost(Duration.ofSeconds(10))
				.pollInSameThread()
				.pollInterval(Duration.ofMillis(20))
				.until(() -> queryLong(remaining, prefix) == 0);
			assertThat(Thread.getAllStackTraces().keySet()).filteredOn((t) -> t.getName().equals("lock-jdbc-cleanup"))
				.isNotEmpty()
				.allMatch(Thread::isDaemon);
		}
		finally {
			cleaning.close();
		}
	}

	@Test
	void storeUsesConnectionsOfItsOwnInAutoCommitEvenWhenThePoolDoesNot() throws SQLException {
		try (HikariDataSource manual = database().newDataSource(Duration.ofSeconds(2), false, null)) {
			JdbcLockStore store = new JdbcLockStore(manual);
			String key = uniqueKey("auto-commit");
			String owner = uniqueToken();
			assertThat(store.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
			assertThat(store().tryAcquire(key, uniqueToken(), TTL).isAcquired())
				.as("acquire through another pool, of a lock taken through a pool without auto-commit")
				.isFalse();
			assertThat(store.release(key, owner)).isTrue();
		}
	}

	@Test
	void lockTakenInsideARolledBackTransactionIsCommittedAtOnceAndStays() {
		String key = uniqueKey("transaction");
		String owner = uniqueToken();
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource()));
		transaction.executeWithoutResult((status) -> {
			assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
			assertThat(TestDataSources.countOtherwise(dataSource(), key))
				.as("lock seen by another connection, " + "before the caller's transaction ends")
				.isOne();
			status.setRollbackOnly();
		});
		assertThat(store().tryAcquire(key, uniqueToken(), TTL).isAcquired())
			.as("acquire after the caller's transaction rolled back")
			.isFalse();
		assertThat(store().release(key, owner)).isTrue();
	}

	@Test
	void resultsStayOutOfTheCallersTransactionByDefault() {
		JdbcLockStore sharedStore = jdbc().store();
		String key = uniqueKey("result-default");
		String owner = uniqueToken();
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource()));
		transaction.executeWithoutResult((status) -> {
			assertThat(sharedStore.putResult(key, owner, new byte[] { 1 }, TTL)).isTrue();
			status.setRollbackOnly();
		});
		assertThat(sharedStore.getResult(key)).as("result stored in auto-commit").containsExactly(1);
		assertThat(store().release(key, owner)).isTrue();
	}

	@Test
	void resultJoinsTheCallersTransactionWhenAskedToAndCommitsOrRollsBackWithIt() {
		JdbcLockStore store = new JdbcLockStore(dataSource());
		store.setJoinTransactionForResults(true);
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource()));
		String key = uniqueKey("result-joined");
		String owner = uniqueToken();
		transaction.executeWithoutResult((status) -> {
			assertThat(store.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
			assertThat(store.putResult(key, owner, new byte[] { 1 }, TTL)).isTrue();
			assertThat(store.getResult(key)).as("result seen by another connection before the commit").isNull();
			status.setRollbackOnly();
		});
		assertThat(store.getResult(key)).as("result after the rollback").isNull();
		assertThat(store.tryAcquire(key, uniqueToken(), TTL).isAcquired())
			.as("acquire after the caller's transaction rolled back: the lock was committed at once")
			.isFalse();
		transaction
			.executeWithoutResult((status) -> assertThat(store.putResult(key, owner, new byte[] { 2 }, TTL)).isTrue());
		assertThat(store.getResult(key)).as("result after the commit").containsExactly(2);
		assertThat(store.release(key, owner)).as("release after the commit").isTrue();
		assertThat(store.putResult(key, owner, new byte[] { 3 }, TTL))
			.as("result of a released lock, outside any " + "transaction")
			.isFalse();
	}

	@Test
	void pausedDatabaseFailsClosedWithinTheTimeout() {
		try (HikariDataSource impatientPool = database().newDataSource(Duration.ofSeconds(1), true, null)) {
			JdbcLockStore impatient = new JdbcLockStore(impatientPool, JdbcLockStore.DEFAULT_TABLE_NAME,
					Duration.ofSeconds(1));
			String key = uniqueKey("paused");
			String owner = uniqueToken();
			assertThat(impatient.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
			database().pause();
			long start = System.nanoTime();
			try {
				assertThatExceptionOfType(LockStoreException.class)
					.isThrownBy(() -> impatient.tryAcquire(key, uniqueToken(), TTL))
					.withMessageContaining("JDBC lock store failed to acquire lock '" + key + "'");
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to fail")
					.isLessThan(Duration.ofMillis(2500));
				long releaseStart = System.nanoTime();
				assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> impatient.release(key, owner));
				assertThat(Duration.ofNanos(System.nanoTime() - releaseStart)).as("time to fail a release")
					.isLessThan(Duration.ofMillis(2500));
			}
			finally {
				database().resume();
			}
			assertThat(impatient.tryAcquire(key, uniqueToken(), TTL).isAcquired()).as("acquire after the pause")
				.isFalse();
			assertThat(impatient.release(key, owner)).isTrue();
		}
	}

	@Test
	void stoppedDatabaseFailsClosedAndTheStoreAnswersAgainAfterTheRestart() {
		String key = uniqueKey("stopped");
		String owner = uniqueToken();
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		database().stop();
		try {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockStoreException.class)
				.isThrownBy(() -> store().tryAcquire(key, uniqueToken(), TTL));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
		}
		finally {
			database().restart();
		}
		await("the store's answer after the restart").atMost(Duration.ofSeconds(10))
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(50))
			.ignoreException(LockStoreException.class)
			.untilAsserted(() -> assertThat(store().release(key, owner)).as("release of a lock kept across the restart")
				.isTrue());
	}

	@Test
	void tableNamesAreUnquotedIdentifiersOptionallyQualifiedByASchema() throws SQLException {
		for (String invalid : new String[] { "", "lock-store", "locks; DROP TABLE x", "\"quoted\"", "1locks", "a.b.c",
				"x".repeat(49) }) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> new JdbcLockStore(dataSource(), invalid, Duration.ofSeconds(1)))
				.withMessageContaining("'tableName'");
		}
		update("CREATE SCHEMA IF NOT EXISTS locks");
		JdbcLockStore qualified = new JdbcLockStore(dataSource(), "locks.App_Locks", Duration.ofSeconds(2));
		qualified.createSchema();
		qualified.createSchema();
		String key = uniqueKey("qualified");
		assertThat(qualified.tryAcquire(key, uniqueToken(), TTL).isAcquired()).isTrue();
		// Unquoted, as the store names it
		assertThat(queryLong("SELECT COUNT(*) FROM locks.App_Locks WHERE lock_key = ?", key)).isOne();
		assertThat(queryLong("SELECT COUNT(*) FROM lock_store WHERE lock_key = ?", key)).isZero();
	}

	@Test
	void instancesStartingTogetherAllCreateTheSchema() throws Exception {
		// PostgreSQL's IF NOT EXISTS races: concurrent creators of one index or
		// sequence may fail on a unique index of the catalog
		int instances = 6;
		for (int round = 0; round < 10; round++) {
			String table = "race_locks_" + round;
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> creations = new ArrayList<>();
			ExecutorService executor = Executors.newFixedThreadPool(instances);
			try {
				for (int i = 0; i < instances; i++) {
					JdbcLockStore store = new JdbcLockStore(dataSource(), table, Duration.ofSeconds(5));
					creations.add(executor.submit(() -> {
						start.await();
						store.createSchema();
						return null;
					}));
				}
				start.countDown();
				for (Future<?> creation : creations) {
					assertThat(creation).as("schema creation of %s", table).succeedsWithin(Duration.ofSeconds(30));
				}
			}
			finally {
				executor.shutdownNow();
			}
			JdbcLockStore store = new JdbcLockStore(dataSource(), table, Duration.ofSeconds(2));
			assertThat(store.tryAcquire(uniqueKey("race"), uniqueToken(), TTL).isAcquired()).isTrue();
		}
	}

	@Test
	void missingTableFailsClosedNamingTheTable() {
		JdbcLockStore missing = new JdbcLockStore(dataSource(), "no_such_table", Duration.ofSeconds(1));
		assertThatExceptionOfType(LockStoreException.class)
			.isThrownBy(() -> missing.tryAcquire(uniqueKey("missing"), uniqueToken(), TTL))
			.withMessageContaining("table 'no_such_table'");
	}

	long queryLong(String sql, String... parameters) throws SQLException {
		return Long.parseLong(queryString(sql, parameters));
	}

	/**
	 * Return the first column of the first row of a query whose parameters are keys.
	 */
	String queryString(String sql, String... parameters) throws SQLException {
		try (Connection connection = dataSource().getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				statement.setString(i + 1, JdbcLockStore.storedKey(parameters[i]));
			}
			try (ResultSet rows = statement.executeQuery()) {
				assertThat(rows.next()).as("a row for " + sql).isTrue();
				return rows.getString(1);
			}
		}
	}

	void update(String sql, String... parameters) throws SQLException {
		try (Connection connection = dataSource().getConnection()) {
			if (parameters.length == 0) {
				try (Statement statement = connection.createStatement()) {
					statement.execute(sql);
				}
				return;
			}
			try (PreparedStatement statement = connection.prepareStatement(sql)) {
				for (int i = 0; i < parameters.length; i++) {
					statement.setString(i + 1, parameters[i]);
				}
				statement.executeUpdate();
			}
		}
	}

}
