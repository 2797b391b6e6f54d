package dev.lockstarter.store.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link JdbcShedLockProviderSuiteTests} on an in-memory H2 database.
 */
class H2JdbcShedLockProviderSuiteTests extends JdbcShedLockProviderSuiteTests {

	@RegisterExtension
	static final SharedJdbcStore jdbc = new SharedJdbcStore(TestDataSources::h2);

	@Override
	SharedJdbcStore jdbc() {
		return jdbc;
	}

}
