package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.contract.LockStoreContractTests;
import dev.lockstarter.test.mariadb.MariaDbServerExtension;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@link LockStoreContractTests} for {@link JdbcLockStore} against a real MariaDB server
 * (durable: locks survive a restart), through a HikariCP pool, and the JDBC store's own
 * promises: expiry on the database's clock, fencing tokens from a sequence, failed
 * acquisitions that write nothing, keys compared byte for byte, clean-up, table names,
 * and bounded failures.
 */
class MariaDbJdbcLockStoreContractTests extends LockStoreContractTests implements JdbcInspectionContract {

	private static final Duration TTL = Duration.ofSeconds(30);

	private static final String ROW = "SELECT CONCAT_WS(':', owner_token, fence, expires_at) FROM lock_store "
			+ "WHERE lock_key = ?";

	@RegisterExtension
	static final MariaDbServerExtension mariadb = new MariaDbServerExtension();

	private static HikariDataSource dataSource;

	private static JdbcLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		dataSource = TestDataSources.mariadb(mariadb.server());
		sharedStore = new JdbcLockStore(dataSource);
		sharedStore.createSchema();
	}

	@AfterAll
	static void closeDataSource() {
		if (dataSource != null) {
			dataSource.close();
		}
	}

	@Override
	protected LockStore createStore() {
		return sharedStore;
	}

	@Override
	public JdbcLockStore inspectedStore() {
		return sharedStore;
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

	@Override
	protected void restartServer() {
		mariadb.server().restart();
	}

	@Override
	protected boolean locksSurviveServerRestart() {
		return true;
	}

	@Test
	void theListingOfHoldersReadsARangeOfThePrimaryKeysIndex() throws SQLException {
		String query = JdbcLockInspection.holdersQuery(JdbcDialect.MARIADB, JdbcLockStore.DEFAULT_TABLE_NAME, true);
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement("EXPLAIN " + query)) {
			statement.setString(1, "a");
			statement.setString(2, "b");
			statement.setInt(3, 10);
			try (ResultSet rows = statement.executeQuery()) {
				assertThat(rows.next()).isTrue();
				assertThat(rows.getString("type")).isEqualTo("range");
				assertThat(rows.getString("key")).isEqualTo("PRIMARY");
				assertThat(rows.getString("Extra")).doesNotContain("filesort");
				assertThat(rows.next()).isFalse();
			}
		}
	}

	@Test
	void expiryIsKeptAndComparedOnTheDatabasesClock() throws SQLException {
		String key = uniqueKey("db-clock");
		String owner = uniqueToken();
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		long remainingMillis = queryLong(
				"SELECT TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) DIV 1000 FROM lock_store "
						+ "WHERE lock_key = ?",
				key);
		assertThat(remainingMillis).as("expiry time less the database's clock, ms")
			.isBetween(TTL.toMillis() - 2000, TTL.toMillis());
		// Time passes for the database only: the lock is free at once, whatever the
		// application's clock says
		update("UPDATE lock_store SET expires_at = UTC_TIMESTAMP(6) - INTERVAL 1000 MICROSECOND WHERE lock_key = ?",
				key);
		String next = uniqueToken();
		assertThat(store().tryAcquire(key, next, TTL).isAcquired()).isTrue();
		assertThat(store().release(key, owner)).as("release by the owner whose lock expired").isFalse();
		assertThat(store().release(key, next)).isTrue();
	}

	@Test
	void failedAcquisitionWritesNothing() throws SQLException {
		String key = uniqueKey("no-write");
		String owner = uniqueToken();
		long fence = store().tryAcquire(key, owner, TTL).fencingToken();
		String rowBefore = queryString(ROW, key);
		long updatesBefore = rowUpdates();
		AcquireReply conflict = store().tryAcquire(key, uniqueToken(), TTL);
		assertThat(conflict.isAcquired()).isFalse();
		assertThat(conflict.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(TTL);
		assertThat(rowUpdates() - updatesBefore).as("rows updated by a failed acquisition").isZero();
		assertThat(queryString(ROW, key)).as("row after a failed acquisition").isEqualTo(rowBefore);
		assertThat(rowBefore).startsWith(owner + ":" + fence + ":");
		// Control: the counter sees a takeover
		update("UPDATE lock_store SET expires_at = UTC_TIMESTAMP(6) - INTERVAL 1000 MICROSECOND WHERE lock_key = ?",
				key);
		updatesBefore = rowUpdates();
		assertThat(store().tryAcquire(key, uniqueToken(), TTL).isAcquired()).isTrue();
		assertThat(rowUpdates() - updatesBefore).as("rows updated by a takeover").isOne();
	}

	@Test
	void keysAndTokensThatDifferOnlyInTrailingSpacesOrCaseAreDifferent() {
		String key = uniqueKey("pad");
		String owner = uniqueToken();
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		assertThat(store().tryAcquire(key + " ", uniqueToken(), TTL).isAcquired()).as("key with a trailing space")
			.isTrue();
		assertThat(store().tryAcquire(key.toUpperCase(Locale.ROOT), uniqueToken(), TTL).isAcquired())
			.as("key in upper case")
			.isTrue();
		assertThat(store().release(key, owner + " ")).as("release with a trailing space on the token").isFalse();
		assertThat(store().release(key, owner.toUpperCase(Locale.ROOT))).as("release with the token in upper case")
			.isFalse();
		assertThat(store().release(key, owner)).isTrue();
	}

	@Test
	void acquisitionWaitingForARowLockFailsWithinTheTimeoutAndLeavesTheRowAlone() throws SQLException {
		String key = uniqueKey("row-lock");
		String owner = uniqueToken();
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		assertThat(store().release(key, owner)).isTrue();
		JdbcLockStore impatient = new JdbcLockStore(dataSource, JdbcLockStore.DEFAULT_TABLE_NAME,
				Duration.ofSeconds(1));
		try (Connection blocker = dataSource.getConnection()) {
			blocker.setAutoCommit(false);
			try (PreparedStatement statement = blocker
				.prepareStatement("SELECT fence FROM lock_store WHERE lock_key = ? FOR UPDATE")) {
				statement.setString(1, JdbcLockStore.storedKey(key));
				statement.executeQuery().close();
			}
			long start = System.nanoTime();
			assertThatExceptionOfType(LockStoreException.class)
				.isThrownBy(() -> impatient.tryAcquire(key, uniqueToken(), TTL))
				.withMessageContaining("JDBC lock store failed to acquire lock '" + key + "'");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to fail")
				.isLessThan(Duration.ofMillis(2500));
			// The client gave up at its network timeout; the server ends the statement at
			// its own query timeout, not later, which may be a moment after
			await("the server's end of the acquisition whose client gave up").atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(150))
				.until(() -> queryLong(
						"SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'") == 0);
			blocker.rollback();
			blocker.setAutoCommit(true);
		}
		assertThat(queryString("SELECT COUNT(*) FROM lock_store WHERE lock_key = ? AND owner_token IS NULL", key))
			.as("free rows of the key")
			.isEqualTo("1");
		assertThat(impatient.tryAcquire(key, uniqueToken(), TTL).isAcquired()).isTrue();
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
		Thread.sleep(100);
		String third = uniqueToken();
		long thirdToken = store().tryAcquire(key, third, TTL).fencingToken();
		assertThat(thirdToken).as("token after taking an expired lock over").isGreaterThan(secondToken);
		assertThat(store().release(key, third)).isTrue();
		// Old enough for the clean-up to delete the row, with its last token
		update("UPDATE lock_store SET expires_at = UTC_TIMESTAMP(6) - INTERVAL 2 MINUTE WHERE lock_key = ?", key);
		sharedStore.cleanUp();
		assertThat(queryLong("SELECT COUNT(*) FROM lock_store WHERE lock_key = ?", key)).as("rows after the clean-up")
			.isZero();
		long fourthToken = store().tryAcquire(key, uniqueToken(), TTL).fencingToken();
		assertThat(fourthToken).as("token after the row was deleted").isGreaterThan(thirdToken);
	}

	@Test
	void takeoverDrawsItsFencingTokenOnceItHoldsTheRow() throws Exception {
		String key = uniqueKey("fence-order");
		String first = uniqueToken();
		assertThat(store().tryAcquire(key, first, TTL).isAcquired()).isTrue();
		assertThat(store().release(key, first)).isTrue();
		JdbcLockStore patient = new JdbcLockStore(dataSource, JdbcLockStore.DEFAULT_TABLE_NAME, Duration.ofSeconds(20));
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try (Connection blocker = dataSource.getConnection()) {
			blocker.setAutoCommit(false);
			try (PreparedStatement statement = blocker
				.prepareStatement("SELECT fence FROM lock_store WHERE lock_key = ? FOR UPDATE")) {
				statement.setString(1, JdbcLockStore.storedKey(key));
				statement.executeQuery().close();
			}
			// The acquisition starts, and waits for the row
			Future<AcquireReply> waiting = executor.submit(() -> patient.tryAcquire(key, uniqueToken(), TTL));
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			while (queryLong("SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'") == 0) {
				assertThat(System.nanoTime() - deadline)
					.as("time left for the acquisition to wait, with transactions %s", queryString(
							"SELECT CONCAT('[', IFNULL(GROUP_CONCAT(trx_state, ': ', LEFT(trx_query, 40)), ''), "
									+ "']') FROM information_schema.INNODB_TRX"))
					.isNegative();
				// InnoDB refreshes the table only when it was not read for 100 ms
				Thread.sleep(150);
			}
			// Meanwhile another owner takes and frees the row with a later token
			long later;
			try (PreparedStatement statement = blocker.prepareStatement("UPDATE lock_store SET "
					+ "fence = NEXTVAL(lock_store_fence_seq), owner_token = NULL, expires_at = UTC_TIMESTAMP(6) "
					+ "WHERE lock_key = ?")) {
				statement.setString(1, JdbcLockStore.storedKey(key));
				assertThat(statement.executeUpdate()).isOne();
			}
			try (PreparedStatement statement = blocker
				.prepareStatement("SELECT fence FROM lock_store WHERE lock_key = ?")) {
				statement.setString(1, JdbcLockStore.storedKey(key));
				try (ResultSet rows = statement.executeQuery()) {
					assertThat(rows.next()).isTrue();
					later = rows.getLong(1);
				}
			}
			blocker.commit();
			blocker.setAutoCommit(true);
			AcquireReply taken = waiting.get(20, TimeUnit.SECONDS);
			assertThat(taken.isAcquired()).as("acquisition once the row was free").isTrue();
			assertThat(taken.fencingToken()).as("token of the takeover, after the token " + later).isGreaterThan(later);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void cleanupDeletesOnlyRowsWhoseLockAndResultExpiredAMinuteAgo() throws Exception {
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
		update("UPDATE lock_store SET expires_at = UTC_TIMESTAMP(6) - INTERVAL 2 MINUTE WHERE lock_key = ? "
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
		update("INSERT INTO lock_store (lock_key, owner_token, expires_at, fence) SELECT CONCAT(?, seq), NULL, "
				+ "UTC_TIMESTAMP(6) - INTERVAL 1 HOUR, NEXTVAL(lock_store_fence_seq) FROM seq_1_to_250", prefix);
		JdbcLockStore cleaning = new JdbcLockStore(dataSource);
		try {
			cleaning.startCleanup(Duration.ofMillis(50));
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			while (queryLong("SELECT COUNT(*) FROM lock_store WHERE lock_key LIKE CONCAT(?, '%')", prefix) > 0) {
				assertThat(System.nanoTime() - deadline).as("time left for the clean-up").isNegative();
				Thread.sleep(20);
			}
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
		try (HikariDataSource manual = TestDataSources.mariadb(mariadb.server(), Duration.ofSeconds(2), false, null)) {
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
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		transaction.executeWithoutResult((status) -> {
			assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
			assertThat(TestDataSources.countOtherwise(dataSource, key))
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
		String key = uniqueKey("result-default");
		String owner = uniqueToken();
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		transaction.executeWithoutResult((status) -> {
			assertThat(sharedStore.putResult(key, owner, new byte[] { 1 }, TTL)).isTrue();
			status.setRollbackOnly();
		});
		assertThat(sharedStore.getResult(key)).as("result stored in auto-commit").containsExactly(1);
		assertThat(store().release(key, owner)).isTrue();
	}

	@Test
	void resultJoinsTheCallersTransactionWhenAskedToAndCommitsOrRollsBackWithIt() {
		JdbcLockStore store = new JdbcLockStore(dataSource);
		store.setJoinTransactionForResults(true);
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
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
		try (HikariDataSource impatientPool = TestDataSources.mariadb(mariadb.server(), Duration.ofSeconds(1), true,
				null)) {
			JdbcLockStore impatient = new JdbcLockStore(impatientPool, JdbcLockStore.DEFAULT_TABLE_NAME,
					Duration.ofSeconds(1));
			String key = uniqueKey("paused");
			String owner = uniqueToken();
			assertThat(impatient.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
			mariadb.server().pause();
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
				mariadb.server().resume();
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
		mariadb.server().stop();
		try {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockStoreException.class)
				.isThrownBy(() -> store().tryAcquire(key, uniqueToken(), TTL));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
		}
		finally {
			mariadb.server().restart();
		}
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (true) {
			try {
				assertThat(store().release(key, owner)).as("release of a lock kept across the restart").isTrue();
				break;
			}
			catch (LockStoreException ex) {
				assertThat(System.nanoTime() - deadline).as("time left to answer again").isNegative();
			}
		}
	}

	@Test
	void tableNamesAreUnquotedIdentifiersOptionallyQualifiedByASchema() throws SQLException {
		for (String invalid : new String[] { "", "lock-store", "locks; DROP TABLE x", "\"quoted\"", "1locks", "a.b.c",
				"x".repeat(49) }) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> new JdbcLockStore(dataSource, invalid, Duration.ofSeconds(1)))
				.withMessageContaining("'tableName'");
		}
		update("CREATE SCHEMA IF NOT EXISTS locks");
		JdbcLockStore qualified = new JdbcLockStore(dataSource, "locks.App_Locks", Duration.ofSeconds(2));
		qualified.createSchema();
		qualified.createSchema();
		String key = uniqueKey("qualified");
		assertThat(qualified.tryAcquire(key, uniqueToken(), TTL).isAcquired()).isTrue();
		assertThat(queryLong("SELECT COUNT(*) FROM locks.App_Locks WHERE lock_key = ?", key)).isOne();
		assertThat(queryLong("SELECT COUNT(*) FROM lock_store WHERE lock_key = ?", key)).isZero();
	}

	@Test
	void instancesStartingTogetherAllCreateTheSchema() throws Exception {
		int instances = 6;
		for (int round = 0; round < 10; round++) {
			String table = "race_locks_" + round;
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> creations = new ArrayList<>();
			ExecutorService executor = Executors.newFixedThreadPool(instances);
			try {
				for (int i = 0; i < instances; i++) {
					JdbcLockStore store = new JdbcLockStore(dataSource, table, Duration.ofSeconds(5));
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
			JdbcLockStore store = new JdbcLockStore(dataSource, table, Duration.ofSeconds(2));
			assertThat(store.tryAcquire(uniqueKey("race"), uniqueToken(), TTL).isAcquired()).isTrue();
		}
	}

	@Test
	void missingTableFailsClosedNamingTheTable() {
		JdbcLockStore missing = new JdbcLockStore(dataSource, "no_such_table", Duration.ofSeconds(1));
		assertThatExceptionOfType(LockStoreException.class)
			.isThrownBy(() -> missing.tryAcquire(uniqueKey("missing"), uniqueToken(), TTL))
			.withMessageContaining("table 'no_such_table'");
	}

	private static long rowUpdates() throws SQLException {
		try (Connection connection = dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
						+ "WHERE VARIABLE_NAME = 'HANDLER_UPDATE'")) {
			assertThat(rows.next()).isTrue();
			return rows.getLong(1);
		}
	}

	private static long queryLong(String sql, String... parameters) throws SQLException {
		return Long.parseLong(queryString(sql, parameters));
	}

	private static String queryString(String sql, String... parameters) throws SQLException {
		try (Connection connection = dataSource.getConnection();
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

	private static void update(String sql, String... parameters) throws SQLException {
		try (Connection connection = dataSource.getConnection()) {
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
