package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.jdbc.HeldCommitDataSource.HeldCommit;

import static dev.lockstarter.store.jdbc.SharedLockTestSupport.token;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.uniqueKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What serializes two operations of the {@link JdbcLockStore} on one key, shown by
 * holding the first one's commit open ({@link HeldCommitDataSource}) while the second one
 * runs: the second one either waits for the commit (a row lock, the key's lock) or reads
 * the state from before the first one, which must then be a safe answer.
 * <p>
 * Where the first operation is an extension of a lock or a place that expires while its
 * commit is held, the extension's statement has matched the holder before its expiry, and
 * the second operation, an acquisition, runs after that expiry: it must not grant the
 * lock, or the place, that the extension is about to keep.
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class JdbcInterleavingTests {

	/** The time-to-live of a holder that expires during a test. */
	private static final Duration SHORT_TTL = Duration.ofSeconds(1);

	private static final Duration TTL = Duration.ofSeconds(30);

	/** Long enough for a commit held open by a test: the key's lock is bounded by it. */
	private static final Duration STORE_TIMEOUT = Duration.ofSeconds(10);

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private HikariDataSource dataSource;

	private HeldCommitDataSource heldDataSource;

	private JdbcLockStore store;

	private JdbcLockStore heldStore;

	/**
	 * Return a pool on the database.
	 */
	abstract HikariDataSource newDataSource();

	/**
	 * Return the SQL of the database's current time.
	 */
	abstract String now();

	/**
	 * Return the SQL of the number of the database's sessions that wait for a lock.
	 */
	abstract String lockWaits();

	@BeforeAll
	void createStores() {
		this.dataSource = newDataSource();
		this.store = new JdbcLockStore(this.dataSource, JdbcLockStore.DEFAULT_TABLE_NAME, STORE_TIMEOUT);
		this.store.createSchema();
		this.heldDataSource = new HeldCommitDataSource(this.dataSource);
		this.heldStore = new JdbcLockStore(this.heldDataSource, JdbcLockStore.DEFAULT_TABLE_NAME, STORE_TIMEOUT);
	}

	@AfterAll
	void closeDataSource() {
		this.executor.shutdownNow();
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

	@Test
	void aPlaceAcquisitionWaitsForTheUncommittedExtendOfAnExpiringPlaceAndCountsIt() throws Exception {
		String key = uniqueKey("place-extend");
		String holder = token();
		assertThat(this.store.tryAcquirePermit(key, holder, SHORT_TTL, 1).isAcquired()).isTrue();
		HeldCommit extendCommit = this.heldDataSource.holdNextCommit();
		Future<Boolean> extend = this.executor.submit(() -> this.heldStore.extendShared(key, holder, TTL));
		extendCommit.awaitReached();
		awaitExpiredOnTheCommittedRow("lock_store_holders", key, holder);
		Future<AcquireReply> acquisition = this.executor
			.submit(() -> this.store.tryAcquirePermit(key, token(), TTL, 1));
		awaitDoneOrWaiting(acquisition);
		extendCommit.release();
		assertThat(extend.get(10, TimeUnit.SECONDS)).as("extend that matched the place before it expired").isTrue();
		AcquireReply reply = acquisition.get(10, TimeUnit.SECONDS);
		assertThat(count("SELECT COUNT(*) FROM lock_store_holders WHERE lock_key = ? AND expires_at > " + now(), key))
			.as("unexpired holders of the one permit of %s", key)
			.isOne();
		assertThat(reply.isAcquired()).as("acquisition while the holder's extend had not committed").isFalse();
	}

	@Test
	void aPlaceAcquisitionWaitsForAnotherThatHasNotCommittedAndCountsItsPlace() throws Exception {
		String key = uniqueKey("place-acquire");
		HeldCommit firstCommit = this.heldDataSource.holdNextCommit();
		Future<AcquireReply> first = this.executor.submit(() -> this.heldStore.tryAcquirePermit(key, token(), TTL, 1));
		firstCommit.awaitReached();
		Future<AcquireReply> second = this.executor.submit(() -> this.store.tryAcquirePermit(key, token(), TTL, 1));
		awaitDoneOrWaiting(second);
		assertThat(second.isDone()).as("second acquisition done before the first committed").isFalse();
		firstCommit.release();
		assertThat(first.get(10, TimeUnit.SECONDS).isAcquired()).isTrue();
		assertThat(second.get(10, TimeUnit.SECONDS).isAcquired()).as("second acquisition of one permit").isFalse();
	}

	@Test
	void aPlaceAcquisitionBeforeAReleaseCommitsIsRefusedAndOneAfterIsGranted() throws Exception {
		String key = uniqueKey("place-release");
		String holder = token();
		assertThat(this.store.tryAcquirePermit(key, holder, TTL, 1).isAcquired()).isTrue();
		HeldCommit releaseCommit = this.heldDataSource.holdNextCommit();
		Future<Boolean> release = this.executor.submit(() -> this.heldStore.releaseShared(key, holder));
		releaseCommit.awaitReached();
		assertThat(this.store.tryAcquirePermit(key, token(), TTL, 1).isAcquired())
			.as("acquisition while the release has not committed")
			.isFalse();
		releaseCommit.release();
		assertThat(release.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.store.tryAcquirePermit(key, token(), TTL, 1).isAcquired()).as("acquisition after the release")
			.isTrue();
	}

	@Test
	void aReaderWaitsForTheWaitOfARefusedWriterToCommitAndIsHeldBack() throws Exception {
		String key = uniqueKey("writer-wait");
		assertThat(this.store.tryAcquireRead(key, token(), TTL).isAcquired()).isTrue();
		HeldCommit writerCommit = this.heldDataSource.holdNextCommit();
		Future<AcquireReply> writer = this.executor
			.submit(() -> this.heldStore.tryAcquireWrite(key, token(), TTL, Duration.ofSeconds(20)));
		writerCommit.awaitReached();
		Future<AcquireReply> reader = this.executor.submit(() -> this.store.tryAcquireRead(key, token(), TTL));
		awaitDoneOrWaiting(reader);
		writerCommit.release();
		assertThat(writer.get(10, TimeUnit.SECONDS).isAcquired()).as("writer beside a reader").isFalse();
		assertThat(reader.get(10, TimeUnit.SECONDS).isAcquired())
			.as("reader whose acquisition ran while the writer's wait was being recorded")
			.isFalse();
	}

	@Test
	void anAcquisitionWaitsForAnotherOfTheSameKeyThatHasNotCommittedAndIsRefused() throws Exception {
		String key = uniqueKey("acquire");
		HeldCommit firstCommit = this.heldDataSource.holdNextCommit();
		Future<AcquireReply> first = this.executor.submit(() -> this.heldStore.tryAcquire(key, token(), TTL));
		firstCommit.awaitReached();
		Future<AcquireReply> second = this.executor.submit(() -> this.store.tryAcquire(key, token(), TTL));
		awaitDoneOrWaiting(second);
		firstCommit.release();
		assertThat(first.get(10, TimeUnit.SECONDS).isAcquired()).isTrue();
		AcquireReply refused = second.get(10, TimeUnit.SECONDS);
		assertThat(refused.isAcquired()).as("second acquisition of %s", key).isFalse();
	}

	@Test
	void aTakeoverWaitsForTheUncommittedExtendOfAnExpiringLockAndIsRefused() throws Exception {
		String key = uniqueKey("extend");
		String holder = token();
		assertThat(this.store.tryAcquire(key, holder, SHORT_TTL).isAcquired()).isTrue();
		HeldCommit extendCommit = this.heldDataSource.holdNextCommit();
		Future<Boolean> extend = this.executor.submit(() -> this.heldStore.extend(key, holder, TTL));
		extendCommit.awaitReached();
		awaitExpiredOnTheCommittedRow("lock_store", key, holder);
		Future<AcquireReply> takeover = this.executor.submit(() -> this.store.tryAcquire(key, token(), TTL));
		awaitDoneOrWaiting(takeover);
		extendCommit.release();
		assertThat(extend.get(10, TimeUnit.SECONDS)).as("extend that matched the lock before it expired").isTrue();
		assertThat(takeover.get(10, TimeUnit.SECONDS).isAcquired())
			.as("takeover of %s, whose holder's extend had not committed", key)
			.isFalse();
		assertThat(this.store.release(key, holder)).as("release by the holder that extended").isTrue();
	}

	@Test
	void anAcquisitionDuringAnUncommittedReleaseIsRefusedOrWaitsAndTakesTheLock() throws Exception {
		String key = uniqueKey("release");
		String holder = token();
		assertThat(this.store.tryAcquire(key, holder, TTL).isAcquired()).isTrue();
		HeldCommit releaseCommit = this.heldDataSource.holdNextCommit();
		Future<Boolean> release = this.executor.submit(() -> this.heldStore.release(key, holder));
		releaseCommit.awaitReached();
		Future<AcquireReply> acquisition = this.executor.submit(() -> this.store.tryAcquire(key, token(), TTL));
		awaitDoneOrWaiting(acquisition);
		boolean waited = !acquisition.isDone();
		releaseCommit.release();
		assertThat(release.get(10, TimeUnit.SECONDS)).isTrue();
		// Refused while the release had not committed, or granted once it had
		assertThat(acquisition.get(10, TimeUnit.SECONDS).isAcquired())
			.as("acquisition that %s the release's commit", waited ? "waited for" : "did not wait for")
			.isEqualTo(waited);
		if (!waited) {
			assertThat(this.store.tryAcquire(key, token(), TTL).isAcquired()).as("acquisition after the release")
				.isTrue();
		}
	}

	@Test
	void ofTwoTakeoversOfAnExpiredLockTheSecondWaitsForTheFirstAndIsRefused() throws Exception {
		String key = uniqueKey("takeover");
		String holder = token();
		assertThat(this.store.tryAcquire(key, holder, SHORT_TTL).isAcquired()).isTrue();
		awaitExpiredOnTheCommittedRow("lock_store", key, holder);
		HeldCommit firstCommit = this.heldDataSource.holdNextCommit();
		Future<AcquireReply> first = this.executor.submit(() -> this.heldStore.tryAcquire(key, token(), TTL));
		firstCommit.awaitReached();
		Future<AcquireReply> second = this.executor.submit(() -> this.store.tryAcquire(key, token(), TTL));
		awaitDoneOrWaiting(second);
		firstCommit.release();
		assertThat(first.get(10, TimeUnit.SECONDS).isAcquired()).as("first takeover").isTrue();
		assertThat(second.get(10, TimeUnit.SECONDS).isAcquired()).as("second takeover of %s", key).isFalse();
	}

	/**
	 * Wait until the row of a holder, as last committed, has expired on the database's
	 * clock.
	 */
	private void awaitExpiredOnTheCommittedRow(String table, String key, String holder) {
		String sql = "SELECT COUNT(*) FROM " + table + " WHERE lock_key = ? AND owner_token = ? AND expires_at <= "
				+ now();
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> count(sql, key, holder) == 1);
	}

	/**
	 * Wait until an operation is done, or waits for a lock in the database.
	 */
	private void awaitDoneOrWaiting(Future<?> operation) {
		// MariaDB refreshes its table of transactions only when it was not read for 100
		// ms
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(150))
			.until(() -> operation.isDone() || count(lockWaits()) > 0);
	}

	private long count(String sql, String... keyAndTokens) throws SQLException {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < keyAndTokens.length; i++) {
				statement.setString(i + 1, (i == 0) ? JdbcLockStore.storedKey(keyAndTokens[i]) : keyAndTokens[i]);
			}
			try (ResultSet rows = statement.executeQuery()) {
				assertThat(rows.next()).isTrue();
				return rows.getLong(1);
			}
		}
	}

}
