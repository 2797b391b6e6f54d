package dev.lockstarter.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;

import dev.lockstarter.store.jdbc.JdbcLockStore;
import dev.lockstarter.test.postgres.PostgresServer;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The locks on PostgreSQL that {@link FailoverStoreCycleBenchmarks} measures side by
 * side, each on its own HikariCP pool of 10 connections (Spring Boot's default size) to
 * the same kind of fresh server, each with its own table, and each taking the lock with a
 * time-to-live of {@link #TTL} and releasing it at once:
 * <ul>
 * <li>{@link #lockTemplate this starter}: {@code LockTemplate} on {@code JdbcLockStore},
 * one statement to acquire and one to release, expiry on the database's clock;</li>
 * <li>{@link #springIntegration Spring Integration}'s {@code JdbcLockRegistry} on
 * {@code DefaultLockRepository}, with a {@code DataSourceTransactionManager} as its
 * application context would give it, and its own schema ({@code INT_LOCK});</li>
 * <li>{@link #shedLock ShedLock}'s {@code JdbcTemplateLockProvider}
 * {@code usingDbTime()}, so that expiry is on the database's clock as for this
 * starter.</li>
 * </ul>
 */
final class PostgresPeerCycles {

	static final Duration TTL = Duration.ofSeconds(30);

	static final int POOL_SIZE = 10;

	private PostgresPeerCycles() {
	}

	static LockCycle lockTemplate(PostgresServer server) {
		HikariDataSource dataSource = dataSource(server);
		JdbcLockStore store = new JdbcLockStore(dataSource);
		store.createSchema();
		return LockCycle.lockTemplate(store, TTL, () -> {
			store.close();
			dataSource.close();
		});
	}

	static LockCycle springIntegration(PostgresServer server) {
		HikariDataSource dataSource = dataSource(server);
		runScript(dataSource, "org/springframework/integration/jdbc/schema-postgresql.sql", "INT_LOCK");
		DefaultLockRepository repository = new DefaultLockRepository(dataSource);
		repository.setTransactionManager(new DataSourceTransactionManager(dataSource));
		repository.afterPropertiesSet();
		repository.afterSingletonsInstantiated();
		JdbcLockRegistry registry = new JdbcLockRegistry(repository, TTL);
		return LockCycle.tryLock(registry::obtain, () -> {
			repository.close();
			dataSource.close();
		});
	}

	static LockCycle shedLock(PostgresServer server) {
		HikariDataSource dataSource = dataSource(server);
		execute(dataSource, "CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL, "
				+ "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
		JdbcTemplateLockProvider provider = new JdbcTemplateLockProvider(
				JdbcTemplateLockProvider.Configuration.builder()
					.withJdbcTemplate(new JdbcTemplate(dataSource))
					.usingDbTime()
					.build());
		return LockCycle.shedLock(provider, TTL, dataSource::close);
	}

	private static HikariDataSource dataSource(PostgresServer server) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(server.jdbcUrl());
		config.setUsername(server.username());
		config.setMaximumPoolSize(POOL_SIZE);
		return new HikariDataSource(config);
	}

	/**
	 * Run the statements of a script on the class path that create one table.
	 * @param dataSource where to run them
	 * @param script the script's resource name
	 * @param table the table whose statements to run
	 */
	static void runScript(HikariDataSource dataSource, String script, String table) {
		String sql;
		try (InputStream in = PostgresPeerCycles.class.getClassLoader().getResourceAsStream(script)) {
			if (in == null) {
				throw new IllegalStateException("No " + script + " on the class path");
			}
			sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		for (String statement : sql.split(";")) {
			if (statement.contains(table)) {
				execute(dataSource, statement.replaceAll("(?m)^--.*$", ""));
			}
		}
	}

	static void execute(HikariDataSource dataSource, String sql) {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not run " + sql, ex);
		}
	}

}
