package dev.lockstarter.store.jdbc;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.mariadb.MariaDbServerExtension;

/**
 * {@link JdbcShedLockProviderSuiteTests} on a real MariaDB server.
 */
class MariaDbJdbcShedLockProviderSuiteTests extends JdbcShedLockProviderSuiteTests {

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

}
