package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.postgres.PostgresServerExtension;

/**
 * {@link ServerJdbcSharedLockTests} on a real PostgreSQL server, whose key lock is a
 * transaction-scoped advisory lock.
 */
class PostgresJdbcSharedLockTests extends ServerJdbcSharedLockTests {

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@Override
	TestDatabase database() {
		return new PostgresTestDatabase(postgres);
	}

	@Override
	void lockKey(Connection connection, String key) throws SQLException {
		try (PreparedStatement statement = connection
			.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?), hashtext(?))")) {
			statement.setString(1, JdbcLockStore.DEFAULT_TABLE_NAME);
			statement.setString(2, key);
			statement.execute();
		}
	}

}
