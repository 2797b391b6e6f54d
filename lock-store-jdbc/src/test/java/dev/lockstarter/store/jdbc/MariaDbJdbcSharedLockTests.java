package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.mariadb.MariaDbServerExtension;

import static dev.lockstarter.store.jdbc.SharedLockTestSupport.TTL;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.count;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.token;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.uniqueKey;
import static dev.lockstarter.store.jdbc.SharedLockTestSupport.update;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ServerJdbcSharedLockTests} on a real MariaDB server, whose key lock is the row
 * lock of the key's row in a table of keys, and what that table adds: its clean-up, and a
 * lock table in another database.
 */
class MariaDbJdbcSharedLockTests extends ServerJdbcSharedLockTests {

	@RegisterExtension
	static final MariaDbServerExtension mariadb = new MariaDbServerExtension();

	@Override
	TestDatabase database() {
		return new MariaDbTestDatabase(mariadb);
	}

	@Override
	void lockKey(Connection connection, String key) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(
				"INSERT INTO lock_store_keys (lock_key) VALUES (?) ON DUPLICATE KEY UPDATE lock_key = lock_key")) {
			statement.setString(1, key);
			statement.execute();
		}
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
		update(dataSource, "UPDATE lock_store_holders SET expires_at = " + database().before(Duration.ofMinutes(2))
				+ " " + "WHERE lock_key = ?", key);
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
		update(dataSource, "UPDATE shared.app_locks_holders SET expires_at = "
				+ database().before(Duration.ofMinutes(2)) + " " + "WHERE lock_key = ?", key);
		assertThat(qualified.cleanUp()).as("rows deleted by the clean-up").isGreaterThanOrEqualTo(2);
	}

}
