package dev.lockstarter.store.jdbc;

import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * Creates the table, index and sequence of a {@link JdbcLockStore} with the DDL of its
 * {@link JdbcDialect dialect}, trying each statement again when a concurrent creation
 * made it fail. It waits up to 30 s (or the store's timeout, if longer) for its
 * connection and for each statement: it runs at startup, when the pool may still be
 * opening its first connection.
 */
final class JdbcSchema {

	/** How many times a DDL statement is tried. */
	static final int ATTEMPTS = 3;

	private JdbcSchema() {
	}

	@SuppressWarnings("NullAway") // JDK 17's NullAway does not read ConnectionCallback<T
									// extends @Nullable Object>
	static void create(JdbcConnections connections) {
		// At startup, the pool may still be opening its first connection
		Duration wait = Duration.ofSeconds(Math.max(30, connections.queryTimeoutSeconds()));
		connections.call("create the table of", "", wait, (connection) -> {
			JdbcDialect dialect = connections.dialect(connection);
			try (Statement statement = connection.createStatement()) {
				if (dialect.usesQueryTimeout()) {
					statement.setQueryTimeout(Math.max(30, connections.queryTimeoutSeconds()));
				}
				for (String ddl : dialect.schema(connections.tableName())) {
					for (int attempt = 1;; attempt++) {
						try {
							statement.execute(ddl);
							break;
						}
						catch (SQLException ex) {
							if (attempt == ATTEMPTS) {
								throw ex;
							}
							pauseBeforeRetry(attempt);
						}
					}
				}
			}
			return null;
		});
	}

	private static void pauseBeforeRetry(int attempt) throws SQLException {
		try {
			Thread.sleep(50L * attempt);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new SQLException("Interrupted while creating the lock table", ex);
		}
	}

}
