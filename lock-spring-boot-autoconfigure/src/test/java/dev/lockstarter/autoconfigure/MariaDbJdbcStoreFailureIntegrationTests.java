package dev.lockstarter.autoconfigure;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.mariadb.MariaDbServerExtension;

/**
 * {@link JdbcStoreFailureIntegrationTests} on MariaDB, a server of one process, paused or
 * killed.
 */
class MariaDbJdbcStoreFailureIntegrationTests extends JdbcStoreFailureIntegrationTests {

	@RegisterExtension
	final MariaDbServerExtension mariadb = new MariaDbServerExtension();

	@Override
	protected String[] dataSourceProperties() {
		return new String[] { "spring.datasource.url=" + this.mariadb.jdbcUrl(),
				"spring.datasource.username=" + this.mariadb.username(),
				"spring.datasource.password=" + this.mariadb.password() };
	}

	@Override
	protected void pauseDatabase() {
		this.mariadb.server().pause();
	}

	@Override
	protected void resumeDatabase() {
		this.mariadb.server().resume();
	}

	@Override
	protected void killDatabase() {
		this.mariadb.server().kill();
	}

}
