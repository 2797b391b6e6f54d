package dev.lockstarter.sample;

import java.util.List;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.postgres.PostgresServerExtension;

/**
 * {@link TwoInstancesOnOneDatabaseTests} on one real PostgreSQL server.
 */
class TwoInstancesWithPostgresTests extends TwoInstancesOnOneDatabaseTests {

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@Override
	List<String> dataSourceArguments() {
		return List.of("--spring.datasource.url=" + postgres.jdbcUrl(),
				"--spring.datasource.username=" + postgres.username());
	}

}
