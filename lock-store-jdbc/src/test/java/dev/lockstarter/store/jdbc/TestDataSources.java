package dev.lockstarter.store.jdbc;

import java.time.Duration;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import dev.lockstarter.test.postgres.PostgresServer;

/**
 * Connection pools for the tests, as an application would have them.
 */
final class TestDataSources {

	private TestDataSources() {
	}

	static HikariDataSource postgres(PostgresServer server) {
		return postgres(server, Duration.ofSeconds(2), true);
	}

	static HikariDataSource postgres(PostgresServer server, Duration connectionTimeout, boolean autoCommit) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(server.jdbcUrl());
		config.setUsername(server.username());
		config.setMaximumPoolSize(12);
		config.setConnectionTimeout(connectionTimeout.toMillis());
		config.setValidationTimeout(Math.min(connectionTimeout.toMillis(), 1000));
		config.setAutoCommit(autoCommit);
		config.addDataSourceProperty("connectTimeout", "2");
		return new HikariDataSource(config);
	}

	static HikariDataSource h2() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		config.setUsername("sa");
		config.setMaximumPoolSize(12);
		return new HikariDataSource(config);
	}

}
