package dev.lockstarter.store.jdbc;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.postgres.PostgresServerExtension;

/**
 * {@link JdbcAdapterContractTests} on a real PostgreSQL server.
 */
class PostgresJdbcAdapterContractTests extends JdbcAdapterContractTests {

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
