package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.LogSafe;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * Runs the statements of a {@link JdbcLockStore}: on a connection of its own in
 * auto-commit ({@link #call}) or in a transaction of its own
 * ({@link #callInOwnTransaction}), obtained within the store's timeout
 * ({@link JdbcConnectionSource}), or on the connection of the Spring-managed transaction
 * active on the data source ({@link #callInTransaction}). Renewals ({@link #callToRenew},
 * {@link #callInOwnTransactionToRenew}) ask for their connections on threads of their
 * own, which no other call waits on. Each call sets the network timeout of its connection
 * to the store's timeout and restores the earlier setting before the connection goes
 * back. The server bounds each statement by the store's timeout too, so that a statement
 * whose caller gave up does not run on: MariaDB and H2 through the statement's query
 * timeout, PostgreSQL through a {@code statement_timeout} set in the statement's own
 * transaction ({@link #prepare(Connection, String)}). Failures, the data source's
 * unchecked exceptions included, become {@link LockStoreException}s that name the
 * operation, the lock and the table. The dialect is found from the first connection and
 * kept.
 * <p>
 * With a release channel (PostgreSQL only), every statement that frees a key is run
 * {@linkplain #freeing(String) as a CTE} that also calls {@code pg_notify} with the
 * stored key of each row it freed, so the announcement commits with the release.
 */
final class JdbcConnections {

	private static final Executor DIRECT = Runnable::run;

	private static final Log logger = LogFactory.getLog(JdbcConnections.class);

	private final DataSource dataSource;

	private final String tableName;

	private final Duration timeout;

	private final JdbcConnectionSource connectionSource;

	private final JdbcConnectionSource renewalSource;

	private final SQLExceptionTranslator translator = new SQLExceptionSubclassTranslator();

	private final @Nullable String releaseChannel;

	private final Map<String, String> freeingStatements = new ConcurrentHashMap<>();

	private final Map<String, String> boundStatements = new ConcurrentHashMap<>();

	private volatile @Nullable JdbcDialect dialect;

	/**
	 * Create the connections of a store.
	 * @param releaseChannel the PostgreSQL channel on which statements that free a key
	 * announce it, or {@code null} for none
	 */
	JdbcConnections(DataSource dataSource, String tableName, Duration timeout, @Nullable String releaseChannel) {
		this.dataSource = dataSource;
		this.tableName = tableName;
		this.timeout = timeout;
		this.releaseChannel = releaseChannel;
		this.connectionSource = new JdbcConnectionSource(dataSource, timeout, JdbcConnectionSource.THREADS,
				"lock-jdbc-connection");
		this.renewalSource = new JdbcConnectionSource(dataSource, timeout, JdbcConnectionSource.RENEWAL_THREADS,
				"lock-jdbc-renewal");
	}

	DataSource dataSource() {
		return this.dataSource;
	}

	String tableName() {
		return this.tableName;
	}

	Duration timeout() {
		return this.timeout;
	}

	/**
	 * Return a connection of the data source, waiting at most the store's timeout, for a
	 * caller that sets it up and closes it itself.
	 */
	Connection connection() throws SQLException {
		return this.connectionSource.getConnection();
	}

	/**
	 * Return a statement that frees rows of the store's tables: the statement itself, or,
	 * with a release channel, a CTE around it that calls {@code pg_notify(channel, key)}
	 * for each row it freed, one row per call. Run it with {@link #freed}.
	 * @param sql an {@code UPDATE} or {@code DELETE} of rows with a {@code lock_key}
	 */
	String freeing(String sql) {
		String channel = this.releaseChannel;
		if (channel == null) {
			return sql;
		}
		// The channel is made of [a-z0-9_.] only (PostgreSqlDialect.releaseChannel)
		return this.freeingStatements.computeIfAbsent(sql, (statement) -> "WITH freed AS (" + statement
				+ " RETURNING lock_key) SELECT pg_notify('" + channel + "', lock_key) FROM freed");
	}

	/**
	 * Run a statement of {@link #freeing}, prepared by {@link #prepare} on a connection,
	 * and return the number of rows it freed.
	 */
	int freed(Connection connection, PreparedStatement statement) throws SQLException {
		if (!execute(connection, statement)) {
			return statement.getUpdateCount();
		}
		int rows = 0;
		try (ResultSet freed = statement.getResultSet()) {
			while (freed.next()) {
				rows++;
			}
		}
		return rows;
	}

	/** Run a query prepared by {@link #prepare} on a connection and return its rows. */
	ResultSet query(Connection connection, PreparedStatement statement) throws SQLException {
		if (!boundInStatement(connection)) {
			return statement.executeQuery();
		}
		if (!execute(connection, statement)) {
			throw new SQLException("The statement returned no rows");
		}
		return statement.getResultSet();
	}

	/**
	 * Run an update prepared by {@link #prepare} on a connection and return the number of
	 * rows.
	 */
	int update(Connection connection, PreparedStatement statement) throws SQLException {
		if (!boundInStatement(connection)) {
			return statement.executeUpdate();
		}
		execute(connection, statement);
		return statement.getUpdateCount();
	}

	/**
	 * Run a statement prepared by {@link #prepare} on a connection, past its server-side
	 * bound if it has one, and return whether its result is a result set. The connection
	 * is the one the statement was prepared on, not
	 * {@link java.sql.Statement#getConnection()}: a wrapper may return another.
	 */
	private boolean execute(Connection connection, PreparedStatement statement) throws SQLException {
		boolean rows = statement.execute();
		return boundInStatement(connection) ? statement.getMoreResults() : rows;
	}

	/**
	 * Prepare a statement that the server ends at the store's timeout, as the client
	 * gives up on it then. MariaDB and H2 get a query timeout, which their drivers have
	 * the server enforce. On PostgreSQL, whose driver enforces a query timeout with a
	 * cancel request on a new connection (which cannot reach a server that does not
	 * answer, and which the statement then waits for), a statement in auto-commit is
	 * preceded by its bound, {@code set_config('statement_timeout', ..., true)}, sent in
	 * the same round trip and so in the same implicit transaction, where it ends; the
	 * statement itself ends at the same bound, be it running or waiting for a lock. In a
	 * transaction, the store's own sets the bound in its first statement
	 * ({@link JdbcDialect#lockKey}), and the caller's is left alone. Run a statement of
	 * this method with {@link #query}, {@link #update} or {@link #freed} on the same
	 * connection, which step past its bound.
	 */
	PreparedStatement prepare(Connection connection, String sql) throws SQLException {
		PreparedStatement statement = connection.prepareStatement(bounded(connection, sql));
		try {
			JdbcDialect dialect = this.dialect;
			if (dialect == null || dialect.usesQueryTimeout()) {
				statement.setQueryTimeout(queryTimeoutSeconds());
			}
			return statement;
		}
		catch (SQLException ex) {
			JdbcUtils.closeStatement(statement);
			throw ex;
		}
	}

	private String bounded(Connection connection, String sql) throws SQLException {
		if (!boundInStatement(connection)) {
			return sql;
		}
		return this.boundStatements.computeIfAbsent(sql, (statement) -> "SELECT set_config('statement_timeout', '"
				+ Math.max(1, this.timeout.toMillis()) + "', true);\n" + statement);
	}

	/**
	 * Return whether the statements of a connection carry their server-side bound in
	 * themselves: on PostgreSQL, in auto-commit.
	 */
	private boolean boundInStatement(Connection connection) throws SQLException {
		return dialect(connection) == JdbcDialect.POSTGRESQL && connection.getAutoCommit();
	}

	/** Prepare one of the dialect's statements on the store's table. */
	PreparedStatement prepare(Connection connection, BiFunction<JdbcDialect, String, String> sql) throws SQLException {
		return prepare(connection, sql.apply(dialect(connection), this.tableName));
	}

	/** The query timeout of a statement, in whole seconds rounded up. */
	int queryTimeoutSeconds() {
		long millis = this.timeout.toMillis();
		return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (millis + 999) / 1000));
	}

	JdbcDialect dialect(Connection connection) throws SQLException {
		JdbcDialect dialect = this.dialect;
		if (dialect == null) {
			DatabaseMetaData metaData = connection.getMetaData();
			dialect = JdbcDialect.forProduct(metaData.getDatabaseProductName());
			if (dialect == null) {
				throw new SQLFeatureNotSupportedException(
						"The JDBC lock store supports PostgreSQL, MariaDB and H2, not "
								+ metaData.getDatabaseProductName() + " " + metaData.getDatabaseProductVersion());
			}
			if (this.releaseChannel != null && dialect != JdbcDialect.POSTGRESQL) {
				throw new SQLFeatureNotSupportedException("Release notifications (PostgreSqlJdbcLockStore) need "
						+ "PostgreSQL, not " + metaData.getDatabaseProductName() + ": use JdbcLockStore");
			}
			this.dialect = dialect;
		}
		return dialect;
	}

	<T extends @Nullable Object> T call(String operation, String key, ConnectionCallback<T> action) {
		return call(this.connectionSource, operation, key, this.timeout, action);
	}

	/**
	 * Run in auto-commit on a connection of its own, waiting for it at most
	 * {@code connectionWait}.
	 */
	<T extends @Nullable Object> T call(String operation, String key, Duration connectionWait,
			ConnectionCallback<T> action) {
		return call(this.connectionSource, operation, key, connectionWait, action);
	}

	/**
	 * Run a renewal in auto-commit on a connection of its own, asked for on the threads
	 * of renewals, which acquisitions do not wait on.
	 */
	<T extends @Nullable Object> T callToRenew(String operation, String key, ConnectionCallback<T> action) {
		return call(this.renewalSource, operation, key, this.timeout, action);
	}

	private <T extends @Nullable Object> T call(JdbcConnectionSource source, String operation, String key,
			Duration connectionWait, ConnectionCallback<T> action) {
		Connection connection = null;
		boolean restoreAutoCommit = false;
		int networkTimeout = -1;
		try {
			connection = source.getConnection(connectionWait);
			// First: some drivers (MariaDB's) change auto-commit with a round trip
			networkTimeout = setNetworkTimeout(connection);
			if (!connection.getAutoCommit()) {
				connection.setAutoCommit(true);
				restoreAutoCommit = true;
			}
			return action.doInConnection(connection);
		}
		catch (SQLException ex) {
			throw failure(operation, key, ex);
		}
		finally {
			if (connection != null) {
				restore(connection, restoreAutoCommit, networkTimeout);
				JdbcUtils.closeConnection(connection);
			}
		}
	}

	/**
	 * Run on the connection of the transaction active on the data source, leaving its
	 * auto-commit mode alone: the transaction's owner commits or rolls back.
	 */
	<T extends @Nullable Object> T callInTransaction(String operation, String key, ConnectionCallback<T> action) {
		Connection connection = null;
		int networkTimeout = -1;
		try {
			connection = transactionConnection();
			networkTimeout = setNetworkTimeout(connection);
			return action.doInConnection(connection);
		}
		catch (SQLException ex) {
			throw failure(operation, key, ex);
		}
		catch (DataAccessException ex) {
			throw new LockStoreException(key, "JDBC lock store failed to " + operation + " lock '" + LogSafe.key(key)
					+ "' in the active transaction (table '" + this.tableName + "'): " + ex.getMessage(), ex);
		}
		finally {
			if (connection != null) {
				restore(connection, false, networkTimeout);
				DataSourceUtils.releaseConnection(connection, this.dataSource);
			}
		}
	}

	/**
	 * Return the connection of the transaction active on the data source, or a connection
	 * of its own: an unchecked exception of the data source other than Spring's is a
	 * failure to reach the database, as an {@link SQLException} is.
	 */
	private Connection transactionConnection() throws SQLException {
		try {
			return DataSourceUtils.getConnection(this.dataSource);
		}
		catch (DataAccessException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			throw new SQLException("The DataSource failed to give a connection: " + ex, ex);
		}
	}

	/**
	 * Run in a transaction of its own on a connection of its own, at READ COMMITTED
	 * (which the dialect sets in its first statement, or which is set here and restored),
	 * committed if the action returns and rolled back if it fails.
	 */
	<T extends @Nullable Object> T callInOwnTransaction(String operation, String key, ConnectionCallback<T> action) {
		return callInOwnTransaction(this.connectionSource, operation, key, action);
	}

	/**
	 * Run a renewal as {@link #callInOwnTransaction}, on a connection asked for on the
	 * threads of renewals, which acquisitions do not wait on.
	 */
	<T extends @Nullable Object> T callInOwnTransactionToRenew(String operation, String key,
			ConnectionCallback<T> action) {
		return callInOwnTransaction(this.renewalSource, operation, key, action);
	}

	private <T extends @Nullable Object> T callInOwnTransaction(JdbcConnectionSource source, String operation,
			String key, ConnectionCallback<T> action) {
		Connection connection = null;
		boolean autoCommit = false;
		int isolation = -1;
		int networkTimeout = -1;
		try {
			connection = source.getConnection();
			// First: some drivers (MariaDB's) change auto-commit and isolation with a
			// round trip
			networkTimeout = setNetworkTimeout(connection);
			autoCommit = connection.getAutoCommit();
			if (autoCommit) {
				connection.setAutoCommit(false);
			}
			if (!dialect(connection).setsIsolation()
					&& connection.getTransactionIsolation() != Connection.TRANSACTION_READ_COMMITTED) {
				isolation = connection.getTransactionIsolation();
				connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
			}
			T result = action.doInConnection(connection);
			connection.commit();
			return result;
		}
		catch (SQLException ex) {
			rollback(connection);
			throw failure(operation, key, ex);
		}
		catch (RuntimeException | Error ex) {
			rollback(connection);
			throw ex;
		}
		finally {
			if (connection != null) {
				try {
					if (isolation >= 0 && !connection.isClosed()) {
						connection.setTransactionIsolation(isolation);
					}
					if (autoCommit && !connection.isClosed()) {
						connection.setAutoCommit(true);
					}
				}
				catch (SQLException ex) {
					logger.debug("Could not restore the settings of a connection of the JDBC lock store", ex);
				}
				restore(connection, false, networkTimeout);
				JdbcUtils.closeConnection(connection);
			}
		}
	}

	private static void rollback(@Nullable Connection connection) {
		try {
			if (connection != null && !connection.isClosed()) {
				connection.rollback();
			}
		}
		catch (SQLException ex) {
			logger.debug("Could not roll back a transaction of the JDBC lock store", ex);
		}
	}

	private int setNetworkTimeout(Connection connection) throws SQLException {
		try {
			int previous = connection.getNetworkTimeout();
			connection.setNetworkTimeout(DIRECT, (int) Math.min(Integer.MAX_VALUE, this.timeout.toMillis()));
			return previous;
		}
		catch (SQLFeatureNotSupportedException | UnsupportedOperationException | AbstractMethodError ex) {
			return -1;
		}
	}

	private void restore(Connection connection, boolean autoCommit, int networkTimeout) {
		try {
			// Auto-commit first, while the store's network timeout still bounds it
			if (autoCommit && !connection.isClosed()) {
				connection.setAutoCommit(false);
			}
			if (networkTimeout >= 0 && !connection.isClosed()) {
				connection.setNetworkTimeout(DIRECT, networkTimeout);
			}
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("Could not restore the settings of a connection of the JDBC lock store", ex);
		}
	}

	private LockStoreException failure(String operation, String key, SQLException ex) {
		DataAccessException translated = this.translator.translate(operation, null, ex);
		Throwable cause = (translated != null) ? translated : ex;
		String what = key.isEmpty() ? "" : " lock '" + LogSafe.key(key) + "'";
		String reason = (translated instanceof QueryTimeoutException
				|| ex.getClass().getSimpleName().toLowerCase(Locale.ROOT).contains("timeout"))
						? " (no answer within " + this.timeout + ")" : "";
		return new LockStoreException(key, "JDBC lock store failed to " + operation + what + " (table '"
				+ this.tableName + "')" + reason + ": " + ex.getMessage(), cause);
	}

	/**
	 * Work with a connection.
	 */
	@FunctionalInterface
	interface ConnectionCallback<T extends @Nullable Object> {

		T doInConnection(Connection connection) throws SQLException;

	}

}
