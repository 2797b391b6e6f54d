package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.mariadb.MariaDbServer;
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
		return postgres(server, connectionTimeout, autoCommit, null);
	}

	/**
	 * A pool whose connections start their transactions at an isolation level, such as
	 * {@code TRANSACTION_REPEATABLE_READ}, or at the driver's default if {@code null}.
	 */
	static HikariDataSource postgres(PostgresServer server, Duration connectionTimeout, boolean autoCommit,
			@Nullable String isolation) {
		HikariConfig config = new HikariConfig();
		if (isolation != null) {
			config.setTransactionIsolation(isolation);
		}
		config.setJdbcUrl(server.jdbcUrl());
		config.setUsername(server.username());
		config.setMaximumPoolSize(12);
		config.setConnectionTimeout(connectionTimeout.toMillis());
		config.setValidationTimeout(Math.min(connectionTimeout.toMillis(), 1000));
		config.setAutoCommit(autoCommit);
		config.addDataSourceProperty("connectTimeout", "2");
		return new HikariDataSource(config);
	}

	static HikariDataSource mariadb(MariaDbServer server) {
		return mariadb(server, Duration.ofSeconds(2), true, null);
	}

	/**
	 * A pool on MariaDB whose connections start their transactions at an isolation level,
	 * such as {@code TRANSACTION_REPEATABLE_READ}, or at the server's default (repeatable
	 * read) if {@code null}.
	 */
	static HikariDataSource mariadb(MariaDbServer server, Duration connectionTimeout, boolean autoCommit,
			@Nullable String isolation) {
		HikariConfig config = new HikariConfig();
		if (isolation != null) {
			config.setTransactionIsolation(isolation);
		}
		config.setJdbcUrl(server.jdbcUrl());
		config.setUsername(server.username());
		config.setPassword(server.password());
		config.setMaximumPoolSize(12);
		config.setConnectionTimeout(connectionTimeout.toMillis());
		config.setValidationTimeout(Math.min(connectionTimeout.toMillis(), 1000));
		config.setAutoCommit(autoCommit);
		config.addDataSourceProperty("connectTimeout", "2000");
		return new HikariDataSource(config);
	}

	/**
	 * Count the held rows of a key through a connection of its own, outside any
	 * transaction of the calling thread.
	 */
	static long countOtherwise(DataSource dataSource, String key) {
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(
						"SELECT COUNT(*) FROM lock_store WHERE lock_key = ? AND owner_token IS NOT NULL")) {
			statement.setString(1, JdbcLockStore.storedKey(key));
			try (ResultSet rows = statement.executeQuery()) {
				rows.next();
				return rows.getLong(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	static HikariDataSource h2() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		config.setUsername("sa");
		config.setMaximumPoolSize(12);
		return new HikariDataSource(config);
	}

}
