package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.lockstarter.core.LockKind;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.test.contract.PermitsChecker;
import dev.lockstarter.test.contract.ReadersWriterChecker;

import static dev.lockstarter.store.jdbc.SharedLockTestSupport.TTL;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.count;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.token;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.uniqueKey;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.update;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.waiting;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.workload;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Permits and read/write locks of the {@link JdbcLockStore} on an in-memory H2 database,
 * whose acquisitions are serialized by a key row selected {@code FOR UPDATE}.
 */
class H2JdbcSharedLockTests {

	private static HikariDataSource dataSource;

	private static JdbcLockStore store;

	private static JdbcLockStore otherStore;

	@BeforeAll
	static void createStores() {
		dataSource = TestDataSources.h2();
		store = new JdbcLockStore(dataSource);
		store.createSchema();
		otherStore = new JdbcLockStore(dataSource);
	}

	@AfterAll
	static void closeDataSource() {
		if (dataSource != null) {
			dataSource.close();
		}
	}

	@Test
	void permitsNeverAdmitMoreHoldersThanTheirNumberFromTwoStores() throws Exception {
		PermitsChecker.Result result = workload(store, otherStore).permits(uniqueKey("permits"),
				waiting(LockKind.permits(3)), 3);
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.maxInside()).as("most holders inside at once, in %s", result).isEqualTo(3);
	}

	@Test
	void readersAndWritersNeverMeetFromTwoStores() throws Exception {
		ReadersWriterChecker.Result result = workload(store, otherStore).readersAndWriter(uniqueKey("read-write"),
				waiting(LockKind.READ), waiting(LockKind.WRITE), (thread) -> thread < 2);
		assertThat(result.maxReaders()).as("most readers inside at once, in %s", result).isGreaterThan(1);
		assertThat(result.violations()).as("a writer met another holder, in %s", result).isZero();
		assertThat(result.writes()).as(result.toString()).isPositive();
	}

	@Test
	void aWaitingWriterHoldsBackNewReadersAndFencingTokensIncrease() {
		String key = uniqueKey("waiting");
		String reader = token();
		long first = store.tryAcquireRead(key, reader, TTL).fencingToken();
		String writer = token();
		assertThat(store.tryAcquireWrite(key, writer, TTL, Duration.ofSeconds(20)).isAcquired()).isFalse();
		assertThat(otherStore.tryAcquireRead(key, token(), TTL).isAcquired()).isFalse();
		assertThat(store.releaseShared(key, reader)).isTrue();
		AcquireReply written = store.tryAcquireWrite(key, writer, TTL, Duration.ofSeconds(20));
		assertThat(written.fencingToken()).isGreaterThan(first);
		assertThat(otherStore.tryAcquireRead(key, token(), TTL).isAcquired()).isFalse();
		assertThat(store.releaseShared(key, writer)).isTrue();
		String next = token();
		assertThat(otherStore.tryAcquireRead(key, next, TTL).fencingToken()).isGreaterThan(written.fencingToken());
		assertThat(otherStore.sharedTimeToExpiry(key)).isPositive().isLessThanOrEqualTo(TTL);
		assertThat(otherStore.extendShared(key, next, Duration.ofMinutes(5))).isTrue();
		assertThat(otherStore.sharedTimeToExpiry(key)).isGreaterThan(Duration.ofMinutes(4));
		assertThat(otherStore.releaseShared(key, next)).isTrue();
	}

	@Test
	void anExpiredPlaceIsFreeAndTheCleanUpDeletesItAndItsKey() throws SQLException {
		String key = uniqueKey("expiry");
		String first = token();
		assertThat(store.tryAcquirePermit(key, first, TTL, 1 + 1).isAcquired()).isTrue();
		assertThat(store.tryAcquirePermit(key, token(), TTL, 2).isAcquired()).isTrue();
		assertThat(store.tryAcquirePermit(key, token(), TTL, 2).isAcquired()).isFalse();
		update(dataSource, "UPDATE lock_store_holders SET expires_at = DATEADD(MINUTE, -2, CURRENT_TIMESTAMP) "
				+ "WHERE lock_key = ? AND owner_token = ?", key, first);
		assertThat(store.releaseShared(key, first)).as("release by the expired holder").isFalse();
		assertThat(store.tryAcquirePermit(key, token(), TTL, 2).isAcquired()).isTrue();
		update(dataSource,
				"UPDATE lock_store_holders SET expires_at = DATEADD(MINUTE, -2, CURRENT_TIMESTAMP) WHERE lock_key = ?",
				key);
		store.cleanUp();
		assertThat(count(dataSource, "SELECT COUNT(*) FROM lock_store_holders WHERE lock_key = ?", key)).isZero();
		assertThat(count(dataSource, "SELECT COUNT(*) FROM lock_store_keys WHERE lock_key = ?", key)).isZero();
		assertThat(store.tryAcquirePermit(key, token(), TTL, 2).isAcquired()).as("acquire after the clean-up").isTrue();
	}

	@Test
	void sharedLocksWorkOnATableInAnotherSchema() throws SQLException {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE SCHEMA IF NOT EXISTS shared");
		}
		JdbcLockStore qualified = new JdbcLockStore(dataSource, "shared.app_locks", Duration.ofSeconds(2));
		qualified.createSchema();
		String key = uniqueKey("qualified");
		assertThat(qualified.tryAcquirePermit(key, token(), TTL, 1 + 1).isAcquired()).isTrue();
		assertThat(count(dataSource, "SELECT COUNT(*) FROM shared.app_locks_holders WHERE lock_key = ?", key)).isOne();
	}

}
