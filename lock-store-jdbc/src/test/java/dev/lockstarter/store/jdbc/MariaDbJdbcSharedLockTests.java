package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.contract.PermitsChecker;
import dev.lockstarter.test.contract.ReadersWriterChecker;
import dev.lockstarter.test.contract.SharedLockWorkload;
import dev.lockstarter.test.mariadb.MariaDbServerExtension;

import static dev.lockstarter.store.jdbc.SharedLockTestSupport.TTL;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.count;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.token;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.uniqueKey;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.update;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.waiting;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.workload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Permits and read/write locks of the {@link JdbcLockStore} on a real MariaDB server:
 * limits that hold under concurrent transactions from two stores (whatever the pools'
 * isolation level), writer preference, expiry on the database's clock, owner-checked
 * release, fencing, clean-up, and bounded failures.
 */
class MariaDbJdbcSharedLockTests {

	@RegisterExtension
	static final MariaDbServerExtension mariadb = new MariaDbServerExtension();

	private static HikariDataSource dataSource;

	private static HikariDataSource otherDataSource;

	private static JdbcLockStore store;

	private static JdbcLockStore otherStore;

	@BeforeAll
	static void createStores() {
		dataSource = TestDataSources.mariadb(mariadb.server());
		otherDataSource = TestDataSources.mariadb(mariadb.server());
		store = new JdbcLockStore(dataSource);
		store.createSchema();
		otherStore = new JdbcLockStore(otherDataSource);
	}

	@AfterAll
	static void closeDataSources() {
		if (dataSource != null) {
			dataSource.close();
		}
		if (otherDataSource != null) {
			otherDataSource.close();
		}
	}

	@Test
	void permitsNeverAdmitMoreHoldersThanTheirNumberFromTwoInstances() throws Exception {
		SharedLockWorkload workload = workload(store, otherStore);
		PermitsChecker.Result result = workload.permits(uniqueKey("permits"), waiting(LockKind.permits(3)), 3);
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.maxInside()).as("most holders inside at once, in %s", result).isEqualTo(3);
		assertThat(result.entries()).as(result.toString()).isEqualTo(workload.entries());
	}

	@Test
	void permitCheckerCatchesAStoreThatAdmitsTooMany() throws Exception {
		JdbcLockStore generous = new JdbcLockStore(dataSource) {

			@Override
			public AcquireReply tryAcquirePermit(String key, String token, Duration ttl, int permits) {
				return super.tryAcquirePermit(key, token, ttl, permits + 2);
			}

		};
		PermitsChecker.Result result = workload(generous, otherStore).permits(uniqueKey("generous"),
				waiting(LockKind.permits(3)), 3);
		assertThat(result.maxInside()).as("most holders inside at once, with two permits too many, in %s", result)
			.isGreaterThan(3);
		assertThat(result.violations()).as("entries over three, in %s", result).isPositive();
	}

	@Test
	void permitsHoldOnPoolsWhoseTransactionsAreRepeatableRead() throws Exception {
		try (HikariDataSource repeatable = repeatableRead(); HikariDataSource otherRepeatable = repeatableRead()) {
			try (Connection connection = repeatable.getConnection()) {
				assertThat(connection.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
			}
			PermitsChecker.Result result = workload(new JdbcLockStore(repeatable), new JdbcLockStore(otherRepeatable))
				.permits(uniqueKey("repeatable"), waiting(LockKind.permits(2)), 2);
			assertThat(result.violations()).as(result.toString()).isZero();
			assertThat(result.maxInside()).as("most holders inside at once, in %s", result).isEqualTo(2);
		}
	}

	private static HikariDataSource repeatableRead() {
		return TestDataSources.mariadb(mariadb.server(), Duration.ofSeconds(2), true, "TRANSACTION_REPEATABLE_READ");
	}

	@Test
	void readersAndWritersNeverMeetFromTwoInstances() throws Exception {
		ReadersWriterChecker.Result result = workload(store, otherStore).readersAndWriter(uniqueKey("read-write"),
				waiting(LockKind.READ), waiting(LockKind.WRITE), (thread) -> thread < 2);
		assertThat(result.maxReaders()).as("most readers inside at once, in %s", result).isGreaterThan(1);
		assertThat(result.violations()).as("a writer met another holder, in %s", result).isZero();
		assertThat(result.writes()).as("writes done, in %s", result).isPositive();
	}

	@Test
	void readersShareAndAWriterExcludesEveryone() {
		String key = uniqueKey("rw");
		String reader = token();
		String otherReader = token();
		assertThat(store.tryAcquireRead(key, reader, TTL).isAcquired()).isTrue();
		assertThat(otherStore.tryAcquireRead(key, otherReader, TTL).isAcquired()).isTrue();
		AcquireReply refusedWriter = store.tryAcquireWrite(key, token(), TTL, Duration.ZERO);
		assertThat(refusedWriter.isAcquired()).isFalse();
		assertThat(refusedWriter.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(TTL);
		assertThat(store.releaseShared(key, reader)).isTrue();
		assertThat(store.releaseShared(key, otherReader)).isTrue();
		String writer = token();
		assertThat(store.tryAcquireWrite(key, writer, TTL, Duration.ZERO).isAcquired()).isTrue();
		assertThat(otherStore.tryAcquireRead(key, token(), TTL).isAcquired()).isFalse();
		assertThat(otherStore.tryAcquireWrite(key, token(), TTL, Duration.ZERO).isAcquired()).isFalse();
		assertThat(store.sharedTimeToExpiry(key)).isPositive().isLessThanOrEqualTo(TTL);
		assertThat(store.releaseShared(key, writer)).isTrue();
		assertThat(store.sharedTimeToExpiry(key)).isZero();
		assertThat(otherStore.tryAcquireRead(key, token(), TTL).isAcquired()).isTrue();
	}

	@Test
	void aWaitingWriterHoldsBackNewReadersUntilItIsGrantedOrReleases() {
		String key = uniqueKey("waiting");
		String reader = token();
		String writer = token();
		assertThat(store.tryAcquireRead(key, reader, TTL).isAcquired()).isTrue();
		assertThat(store.tryAcquireWrite(key, writer, TTL, Duration.ofSeconds(20)).isAcquired()).isFalse();
		AcquireReply heldBack = otherStore.tryAcquireRead(key, token(), TTL);
		assertThat(heldBack.isAcquired()).as("a new reader while a writer waits").isFalse();
		assertThat(heldBack.holderRemainingTtl()).as("the readers' longest time-to-live").isPositive();
		assertThat(store.releaseShared(key, reader)).isTrue();
		assertThat(store.tryAcquireWrite(key, writer, TTL, Duration.ofSeconds(20)).isAcquired()).isTrue();
		assertThat(store.releaseShared(key, writer)).isTrue();
		assertThat(otherStore.tryAcquireRead(key, token(), TTL).isAcquired())
			.as("a new reader once the writer was granted and left")
			.isTrue();
		// A writer that gives up ends its wait by releasing
		String gaveUp = token();
		assertThat(store.tryAcquireWrite(key, gaveUp, TTL, Duration.ofSeconds(20)).isAcquired()).isFalse();
		assertThat(otherStore.tryAcquireRead(key, token(), TTL).isAcquired()).isFalse();
		assertThat(store.releaseShared(key, gaveUp)).as("release of a writer that only waited").isFalse();
		assertThat(otherStore.tryAcquireRead(key, token(), TTL).isAcquired()).isTrue();
	}

	@Test
	void aWriterWithAWaitGetsInWhileReadersKeepArriving() throws Exception {
		String key = uniqueKey("starving");
		try (ReaderStream readers = new ReaderStream(store, otherStore, key, 3)) {
			readers.awaitOverlapping();
			// Control: a writer that records no wait never finds the key free
			long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
			int refusals = 0;
			while (System.nanoTime() < deadline) {
				assertThat(store.tryAcquireWrite(key, token(), TTL, Duration.ZERO).isAcquired())
					.as("a writer without a wait, while readers hand over")
					.isFalse();
				refusals++;
			}
			assertThat(refusals).isPositive();
			LockTemplate locks = new LockTemplate(otherStore, "");
			try (var lease = locks.acquire(key,
					LockOptions.ttl(TTL).withKind(LockKind.WRITE).withWaitTime(Duration.ofSeconds(20)))) {
				assertThat(lease.isHeld()).isTrue();
				assertThat(readers.readersInside()).as("readers inside with the writer").isZero();
			}
			assertThat(readers.refusals()).as("readers held back by the waiting writer").isPositive();
		}
	}

	@Test
	void anExpiredPlaceIsFreeAndItsTokenChangesNothing() throws SQLException {
		String key = uniqueKey("expiry");
		String first = token();
		String second = token();
		assertThat(store.tryAcquirePermit(key, first, TTL, 2).isAcquired()).isTrue();
		assertThat(store.tryAcquirePermit(key, second, TTL, 2).isAcquired()).isTrue();
		assertThat(otherStore.tryAcquirePermit(key, token(), TTL, 2).isAcquired()).isFalse();
		// Time passes for the database only
		update(dataSource, "UPDATE lock_store_holders SET expires_at = UTC_TIMESTAMP(6) - INTERVAL 1000 MICROSECOND "
				+ "WHERE lock_key = ? AND owner_token = ?", key, first);
		String third = token();
		assertThat(otherStore.tryAcquirePermit(key, third, TTL, 2).isAcquired()).as("acquire of the expired place")
			.isTrue();
		assertThat(store.releaseShared(key, first)).as("release by the expired holder").isFalse();
		assertThat(store.extendShared(key, first, TTL)).as("extend by the expired holder").isFalse();
		assertThat(holders(key)).as("unexpired places").isEqualTo(2);
		assertThat(otherStore.tryAcquirePermit(key, token(), TTL, 2).isAcquired()).isFalse();
		assertThat(store.extendShared(key, second, Duration.ofMinutes(5))).isTrue();
		assertThat(store.sharedTimeToExpiry(key)).isGreaterThan(Duration.ofMinutes(4));
		assertThat(store.releaseShared(key, second)).isTrue();
		assertThat(store.releaseShared(key, third)).isTrue();
		assertThat(holders(key)).isZero();
	}

	@Test
	void fencingTokensIncreaseWithEveryGrantAcrossKindsAndTheCleanUp() throws SQLException {
		String key = uniqueKey("fencing");
		String firstReader = token();
		long first = store.tryAcquireRead(key, firstReader, TTL).fencingToken();
		String secondReader = token();
		long second = otherStore.tryAcquireRead(key, secondReader, TTL).fencingToken();
		assertThat(second).isGreaterThan(first);
		store.releaseShared(key, firstReader);
		store.releaseShared(key, secondReader);
		String writer = token();
		long third = otherStore.tryAcquireWrite(key, writer, TTL, Duration.ZERO).fencingToken();
		assertThat(third).isGreaterThan(second);
		update(dataSource, "UPDATE lock_store_holders SET expires_at = UTC_TIMESTAMP(6) - INTERVAL 2 MINUTE "
				+ "WHERE lock_key = ?", key);
		store.cleanUp();
		assertThat(count(dataSource, "SELECT COUNT(*) FROM lock_store_holders WHERE lock_key = ?", key))
			.as("rows after the clean-up")
			.isZero();
		long fourth = store.tryAcquirePermit(key, token(), TTL, 3).fencingToken();
		assertThat(fourth).as("token after the rows were deleted").isGreaterThan(third);
	}

	@Test
	void cleanUpDeletesOnlyPlacesAndWaitsThatEndedAMinuteAgo() throws SQLException {
		String key = uniqueKey("cleanup");
		String old = token();
		String recent = token();
		String live = token();
		String waiting = token();
		for (String holder : new String[] { old, recent, live }) {
			assertThat(store.tryAcquireRead(key, holder, TTL).isAcquired()).isTrue();
		}
		assertThat(store.tryAcquireWrite(key, waiting, TTL, Duration.ofSeconds(1)).isAcquired()).isFalse();
		update(dataSource, "UPDATE lock_store_holders SET expires_at = UTC_TIMESTAMP(6) - INTERVAL 2 MINUTE "
				+ "WHERE lock_key = ? AND owner_token = ?", key, old);
		update(dataSource, "UPDATE lock_store_holders SET expires_at = UTC_TIMESTAMP(6) - INTERVAL 1 SECOND "
				+ "WHERE lock_key = ? AND owner_token = ?", key, recent);
		update(dataSource, "UPDATE lock_store_writers SET waits_until = UTC_TIMESTAMP(6) - INTERVAL 2 MINUTE "
				+ "WHERE lock_key = ? AND owner_token = ?", key, waiting);
		store.cleanUp();
		assertThat(count(dataSource, "SELECT COUNT(*) FROM lock_store_holders WHERE lock_key = ?", key)).isEqualTo(2);
		assertThat(count(dataSource, "SELECT COUNT(*) FROM lock_store_writers WHERE lock_key = ?", key)).isZero();
		assertThat(store.releaseShared(key, live)).isTrue();
	}

	@Test
	void pausedDatabaseFailsSharedCallsWithinTheTimeout() {
		try (HikariDataSource impatientPool = TestDataSources.mariadb(mariadb.server(), Duration.ofSeconds(1), true,
				null)) {
			JdbcLockStore impatient = new JdbcLockStore(impatientPool, JdbcLockStore.DEFAULT_TABLE_NAME,
					Duration.ofSeconds(1));
			String key = uniqueKey("paused");
			String reader = token();
			assertThat(impatient.tryAcquireRead(key, reader, TTL).isAcquired()).isTrue();
			mariadb.server().pause();
			try {
				assertFailsInTime(() -> impatient.tryAcquirePermit(uniqueKey("paused-permit"), token(), TTL, 2));
				assertFailsInTime(() -> impatient.tryAcquireRead(key, token(), TTL));
				assertFailsInTime(() -> impatient.tryAcquireWrite(key, token(), TTL, Duration.ofSeconds(5)));
				assertFailsInTime(() -> impatient.releaseShared(key, reader));
				assertFailsInTime(() -> impatient.extendShared(key, reader, TTL));
			}
			finally {
				mariadb.server().resume();
			}
			assertThat(impatient.tryAcquireWrite(key, token(), TTL, Duration.ZERO).isAcquired())
				.as("a writer after the pause, while the reader holds")
				.isFalse();
			assertThat(impatient.releaseShared(key, reader)).isTrue();
		}
	}

	@Test
	void aKeyWaitsForTheKeysLockNoLongerThanTheTimeout() throws SQLException {
		String key = uniqueKey("key-lock");
		JdbcLockStore impatient = new JdbcLockStore(dataSource, JdbcLockStore.DEFAULT_TABLE_NAME,
				Duration.ofSeconds(1));
		try (Connection blocker = dataSource.getConnection()) {
			blocker.setAutoCommit(false);
			try (PreparedStatement statement = blocker.prepareStatement(
					"INSERT INTO lock_store_keys (lock_key) VALUES (?) ON DUPLICATE KEY UPDATE lock_key = lock_key")) {
				statement.setString(1, key);
				statement.execute();
			}
			assertFailsInTime(() -> impatient.tryAcquirePermit(key, token(), TTL, 2));
			blocker.rollback();
			blocker.setAutoCommit(true);
		}
		assertThat(impatient.tryAcquirePermit(key, token(), TTL, 2).isAcquired()).isTrue();
	}

	@Test
	void theCleanUpDeletesAKeysRowOnceItsPlacesAreGoneAndTheKeyWorksAfterwards() throws SQLException {
		String key = uniqueKey("key-row");
		String holder = token();
		assertThat(store.tryAcquirePermit(key, holder, TTL, 2).isAcquired()).isTrue();
		assertThat(count(dataSource, "SELECT COUNT(*) FROM lock_store_keys WHERE lock_key = ?", key)).isOne();
		store.cleanUp();
		assertThat(count(dataSource, "SELECT COUNT(*) FROM lock_store_keys WHERE lock_key = ?", key))
			.as("key row while a place is held")
			.isOne();
		update(dataSource, "UPDATE lock_store_holders SET expires_at = UTC_TIMESTAMP(6) - INTERVAL 2 MINUTE "
				+ "WHERE lock_key = ?", key);
		store.cleanUp();
		assertThat(count(dataSource, "SELECT COUNT(*) FROM lock_store_holders WHERE lock_key = ?", key)).isZero();
		assertThat(count(dataSource, "SELECT COUNT(*) FROM lock_store_keys WHERE lock_key = ?", key))
			.as("key row after its places were cleaned up")
			.isZero();
		assertThat(store.tryAcquirePermit(key, token(), TTL, 2).isAcquired()).as("acquire after the clean-up").isTrue();
	}

	@Test
	void sharedLocksWorkOnATableInAnotherDatabase() throws SQLException {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE IF NOT EXISTS shared");
		}
		JdbcLockStore qualified = new JdbcLockStore(dataSource, "shared.app_locks", Duration.ofSeconds(2));
		qualified.createSchema();
		String key = uniqueKey("qualified");
		String first = token();
		assertThat(qualified.tryAcquirePermit(key, first, TTL, 1).isAcquired()).isTrue();
		assertThat(qualified.tryAcquirePermit(key, token(), TTL, 1).isAcquired()).isFalse();
		assertThat(count(dataSource, "SELECT COUNT(*) FROM shared.app_locks_holders WHERE lock_key = ?", key)).isOne();
		assertThat(count(dataSource, "SELECT COUNT(*) FROM lock_store_holders WHERE lock_key = ?", key)).isZero();
		update(dataSource, "UPDATE shared.app_locks_holders SET expires_at = UTC_TIMESTAMP(6) - INTERVAL 2 MINUTE "
				+ "WHERE lock_key = ?", key);
		assertThat(qualified.cleanUp()).as("rows deleted by the clean-up").isGreaterThanOrEqualTo(2);
	}

	private static void assertFailsInTime(Runnable call) {
		long start = System.nanoTime();
		assertThatExceptionOfType(LockStoreException.class).isThrownBy(call::run);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to fail").isLessThan(Duration.ofMillis(2500));
	}

	private static long holders(String key) throws SQLException {
		return count(dataSource,
				"SELECT COUNT(*) FROM lock_store_holders WHERE lock_key = ? AND expires_at > UTC_TIMESTAMP(6)", key);
	}

}
