package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.contract.PermitsChecker;
import dev.lockstarter.test.contract.ReadersWriterChecker;
import dev.lockstarter.test.contract.SharedLockWorkload;

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
 * Permits and read/write locks of the {@link JdbcLockStore} on a real database server:
 * limits that hold under concurrent transactions from two stores (whatever the pools'
 * isolation level), writer preference, expiry on the database's clock, owner-checked
 * release, fencing, clean-up, and bounded failures.
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class ServerJdbcSharedLockTests {

	HikariDataSource dataSource;

	private HikariDataSource otherDataSource;

	JdbcLockStore store;

	private JdbcLockStore otherStore;

	/**
	 * Return the server.
	 * @return the server, as the tests see it
	 */
	abstract TestDatabase database();

	/**
	 * Take the lock that serializes the shared operations of a key, in the connection's
	 * open transaction.
	 * @param connection the connection, not in auto-commit
	 * @param key the store key
	 * @throws SQLException if the statement fails
	 */
	abstract void lockKey(Connection connection, String key) throws SQLException;

	@BeforeAll
	void createStores() {
		dataSource = database().newDataSource(Duration.ofSeconds(2), true, null);
		otherDataSource = database().newDataSource(Duration.ofSeconds(2), true, null);
		store = new JdbcLockStore(dataSource);
		store.createSchema();
		otherStore = new JdbcLockStore(otherDataSource);
	}

	@AfterAll
	void closeDataSources() {
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

	private HikariDataSource repeatableRead() {
		return database().newDataSource(Duration.ofSeconds(2), true, "TRANSACTION_REPEATABLE_READ");
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
		update(dataSource, "UPDATE lock_store_holders SET expires_at = " + database().before(Duration.ofMillis(1)) + " "
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
		update(dataSource, "UPDATE lock_store_holders SET expires_at = " + database().before(Duration.ofMinutes(2))
				+ " " + "WHERE lock_key = ?", key);
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
		update(dataSource, "UPDATE lock_store_holders SET expires_at = " + database().before(Duration.ofMinutes(2))
				+ " " + "WHERE lock_key = ? AND owner_token = ?", key, old);
		update(dataSource, "UPDATE lock_store_holders SET expires_at = " + database().before(Duration.ofSeconds(1))
				+ " " + "WHERE lock_key = ? AND owner_token = ?", key, recent);
		update(dataSource, "UPDATE lock_store_writers SET waits_until = " + database().before(Duration.ofMinutes(2))
				+ " " + "WHERE lock_key = ? AND owner_token = ?", key, waiting);
		store.cleanUp();
		assertThat(count(dataSource, "SELECT COUNT(*) FROM lock_store_holders WHERE lock_key = ?", key)).isEqualTo(2);
		assertThat(count(dataSource, "SELECT COUNT(*) FROM lock_store_writers WHERE lock_key = ?", key)).isZero();
		assertThat(store.releaseShared(key, live)).isTrue();
	}

	@Test
	void pausedDatabaseFailsSharedCallsWithinTheTimeout() {
		try (HikariDataSource impatientPool = database().newDataSource(Duration.ofSeconds(1), true, null)) {
			JdbcLockStore impatient = new JdbcLockStore(impatientPool, JdbcLockStore.DEFAULT_TABLE_NAME,
					Duration.ofSeconds(1));
			String key = uniqueKey("paused");
			String reader = token();
			assertThat(impatient.tryAcquireRead(key, reader, TTL).isAcquired()).isTrue();
			database().pause();
			try {
				assertFailsInTime(() -> impatient.tryAcquirePermit(uniqueKey("paused-permit"), token(), TTL, 2));
				assertFailsInTime(() -> impatient.tryAcquireRead(key, token(), TTL));
				assertFailsInTime(() -> impatient.tryAcquireWrite(key, token(), TTL, Duration.ofSeconds(5)));
				assertFailsInTime(() -> impatient.releaseShared(key, reader));
				assertFailsInTime(() -> impatient.extendShared(key, reader, TTL));
			}
			finally {
				database().resume();
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
			lockKey(blocker, key);
			assertFailsInTime(() -> impatient.tryAcquirePermit(key, token(), TTL, 2));
			blocker.rollback();
			blocker.setAutoCommit(true);
		}
		assertThat(impatient.tryAcquirePermit(key, token(), TTL, 2).isAcquired()).isTrue();
	}

	private static void assertFailsInTime(Runnable call) {
		long start = System.nanoTime();
		assertThatExceptionOfType(LockStoreException.class).isThrownBy(call::run);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to fail").isLessThan(Duration.ofMillis(2500));
	}

	private long holders(String key) throws SQLException {
		return count(dataSource, "SELECT COUNT(*) FROM lock_store_holders WHERE lock_key = ? AND expires_at > "
				+ database().before(Duration.ZERO), key);
	}

}
