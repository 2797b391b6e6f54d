package dev.lockstarter.sample;

import java.util.List;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.mariadb.MariaDbServerExtension;

/**
 * {@link TwoInstancesOnOneDatabaseTests} on one real MariaDB server: the {@code jdbc}
 * profile with only the data source's URL and credentials changed.
 */
class TwoInstancesWithMariaDbTests extends TwoInstancesOnOneDatabaseTests {

	@RegisterExtension
	static final MariaDbServerExtension mariadb = new MariaDbServerExtension();

	@Override
	List<String> dataSourceArguments() {
		return List.of("--spring.datasource.url=" + mariadb.jdbcUrl(),
				"--spring.datasource.username=" + mariadb.username(),
				"--spring.datasource.password=" + mariadb.password());
	}

}
