package dev.lockstarter.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.postgres.PostgresServerExtension;

/**
 * {@link JdbcInterleavingTests} on a real PostgreSQL server.
 */
class PostgresJdbcInterleavingTests extends JdbcInterleavingTests {

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@Override
	HikariDataSource newDataSource() {
		return TestDataSources.postgres(postgres.server());
	}

	@Override
	String now() {
		return "clock_timestamp()";
	}

	@Override
	String lockWaits() {
		return "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'";
	}

}
