package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.mariadb.MariaDbServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link ServerJdbcLockStoreContractTests} against a real MariaDB server, and what is
 * MariaDB's own: the plan of the listing, failed acquisitions that update no row, keys
 * compared byte for byte, and row locks that an acquisition waits for.
 */
class MariaDbJdbcLockStoreContractTests extends ServerJdbcLockStoreContractTests {

	private static final String ROW = "SELECT CONCAT_WS(':', owner_token, fence, expires_at) FROM lock_store "
			+ "WHERE lock_key = ?";

	private static final String LOCK_WAITS = "SELECT COUNT(*) FROM information_schema.INNODB_TRX "
			+ "WHERE trx_state = 'LOCK WAIT'";

	@RegisterExtension
	@Order(1)
	static final MariaDbServerExtension mariadb = new MariaDbServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedJdbcStore jdbc = new SharedJdbcStore(() -> TestDataSources.mariadb(mariadb.server()));

	@Override
	SharedJdbcStore jdbc() {
		return jdbc;
	}

	@Override
	TestDatabase database() {
		return new MariaDbTestDatabase(mariadb);
	}

	@Test
	void theListingOfHoldersReadsARangeOfThePrimaryKeysIndex() throws SQLException {
		String query = JdbcLockInspection.holdersQuery(JdbcDialect.MARIADB, JdbcLockStore.DEFAULT_TABLE_NAME, true);
		try (Connection connection = dataSource().getConnection();
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
		JdbcLockStore impatient = new JdbcLockStore(dataSource(), JdbcLockStore.DEFAULT_TABLE_NAME,
				Duration.ofSeconds(1));
		try (Connection blocker = dataSource().getConnection()) {
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
				.pollInSameThread()
				.pollInterval(Duration.ofMillis(150))
				.until(() -> queryLong(LOCK_WAITS) == 0);
			blocker.rollback();
			blocker.setAutoCommit(true);
		}
		assertThat(queryString("SELECT COUNT(*) FROM lock_store WHERE lock_key = ? AND owner_token IS NULL", key))
			.as("free rows of the key")
			.isEqualTo("1");
		assertThat(impatient.tryAcquire(key, uniqueToken(), TTL).isAcquired()).isTrue();
	}

	@Test
	void takeoverDrawsItsFencingTokenOnceItHoldsTheRow() throws Exception {
		String key = uniqueKey("fence-order");
		String first = uniqueToken();
		assertThat(store().tryAcquire(key, first, TTL).isAcquired()).isTrue();
		assertThat(store().release(key, first)).isTrue();
		JdbcLockStore patient = new JdbcLockStore(dataSource(), JdbcLockStore.DEFAULT_TABLE_NAME,
				Duration.ofSeconds(20));
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try (Connection blocker = dataSource().getConnection()) {
			blocker.setAutoCommit(false);
			try (PreparedStatement statement = blocker
				.prepareStatement("SELECT fence FROM lock_store WHERE lock_key = ? FOR UPDATE")) {
				statement.setString(1, JdbcLockStore.storedKey(key));
				statement.executeQuery().close();
			}
			// The acquisition starts, and waits for the row
			Future<AcquireReply> waiting = executor.submit(() -> patient.tryAcquire(key, uniqueToken(), TTL));
			// InnoDB refreshes the table only when it was not read for 100 ms
			await("the acquisition's wait for the row").atMost(Duration.ofSeconds(10))
				.pollInSameThread()
				.pollInterval(Duration.ofMillis(150))
				.untilAsserted(() -> assertThat(queryLong(LOCK_WAITS))
					.as("waiting transactions among %s", queryString(
							"SELECT CONCAT('[', IFNULL(GROUP_CONCAT(trx_state, ': ', LEFT(trx_query, 40)), ''), "
									+ "']') FROM information_schema.INNODB_TRX"))
					.isPositive());
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

	private long rowUpdates() throws SQLException {
		try (Connection connection = dataSource().getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
						+ "WHERE VARIABLE_NAME = 'HANDLER_UPDATE'")) {
			assertThat(rows.next()).isTrue();
			return rows.getLong(1);
		}
	}

}
