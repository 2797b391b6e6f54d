package dev.lockstarter.store.jdbc;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.postgres.PostgresServerExtension;

/**
 * {@link JdbcShedLockProviderSuiteTests} on a real PostgreSQL server.
 */
class PostgresJdbcShedLockProviderSuiteTests extends JdbcShedLockProviderSuiteTests {

	@RegisterExtension
	@Order(1)
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedJdbcStore jdbc = new SharedJdbcStore(() -> TestDataSources.postgres(postgres.server()));

	@Override
	SharedJdbcStore jdbc() {
		return jdbc;
	}

}
