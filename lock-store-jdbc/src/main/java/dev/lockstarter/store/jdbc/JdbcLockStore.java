package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.HashedKeys;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.LogSafe;
import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * {@link LockStore} on a relational database through JDBC: PostgreSQL (the primary
 * target) and H2.
 * <p>
 * A lock is a row of one table ({@value #DEFAULT_TABLE_NAME} by default): its key, the
 * owner token ({@code NULL} when free), its expiry time and its fencing token, plus the
 * result kept next to it (see {@link ResultStoringLockStore}) and that result's expiry
 * time. Every operation is one conditional statement, in auto-commit, on a connection of
 * its own:
 * <ul>
 * <li>acquire: on PostgreSQL, one {@code INSERT ... ON CONFLICT (lock_key) DO UPDATE ...
 * WHERE owner IS NULL OR expires_at <= clock_timestamp()} that returns the new fencing
 * token, and in the same statement, when the row is held, the holder's remaining
 * time-to-live. On H2, a conditional {@code UPDATE}, then an {@code INSERT} if there was
 * no row. A failed acquisition writes nothing.</li>
 * <li>release: an {@code UPDATE} that frees the row ({@code owner = NULL}) on the
 * condition that the caller's token holds it and it has not expired. The row stays, so
 * its result outlives the release.</li>
 * <li>extend and put result: an {@code UPDATE} on the same condition.</li>
 * <li>time to expiry: a {@code SELECT} of the row's expiry time less the database's
 * clock, on the condition that an owner holds the row and it has not expired; it changes
 * nothing.</li>
 * </ul>
 * <p>
 * <b>Expiry</b> is decided by the database server's clock ({@code clock_timestamp()} on
 * PostgreSQL, {@code CURRENT_TIMESTAMP} on H2), never by the application's: the expiry
 * time is computed and compared inside the statements, with microsecond precision. A lock
 * whose expiry time has passed is free to be acquired; the clocks of the application
 * instances do not matter.
 * <p>
 * <b>Fencing tokens</b> come from one database sequence per table (the table's name
 * followed by {@code _fence_seq}), drawn in the statement that acquires, so acquisition
 * and token are one atomic write. A sequence only grows, so the tokens of a key strictly
 * increase across owners, across releases, across takeovers of expired locks and across
 * the {@linkplain #cleanUp() clean-up} of old rows (they are unique across keys, too).
 * <p>
 * <b>Keys</b> are stored as they are when they take at most {@value #MAX_KEY_BYTES} bytes
 * of UTF-8 and hold no NUL character or unpaired surrogate (which PostgreSQL cannot store
 * as text); any other key, and any key starting with {@code "#sha256:"}, is replaced by
 * {@code "#sha256:"} and the Base64url SHA-256 of its UTF-8 bytes.
 * <p>
 * <b>Bounds</b>: each call sets the network timeout of its connection
 * ({@link Connection#setNetworkTimeout}) to the store's timeout, so that a database that
 * stops answering fails the call with {@link LockStoreException} within that time (the
 * driver closes the connection) instead of hanging it; the connection's earlier setting
 * is restored before it goes back to the pool. On H2, which has no network, statements
 * get a query timeout instead (whole seconds, rounded up); on PostgreSQL they do not,
 * because its driver cancels a statement through a new connection and waits up to
 * 10&nbsp;s for an unresponsive server to take the cancel. Borrowing a connection is
 * bounded by the connection pool (HikariCP's {@code connectionTimeout}). A call whose
 * answer is lost may still have been applied: it is reported as a failure, never as a
 * success. The store takes connections of its own from the {@link DataSource}, never the
 * one of the caller's transaction, and runs in auto-commit, so a lock is committed at
 * once, whatever transaction the caller runs in.
 * <p>
 * <b>Results in the caller's transaction</b> (off by default, see
 * {@link #setJoinTransactionForResults(boolean)}): {@link #putResult} may instead run on
 * the connection of the Spring-managed transaction active on this store's
 * {@code DataSource}, so that the result commits or rolls back with the caller's own
 * writes. Acquire, release and extend never join a transaction. The owner-checked
 * {@code UPDATE} then holds the lock row's row lock until that transaction ends: an
 * {@code extend} or {@code release} of the same lock waits for it (so release only after
 * the commit), and so does another instance's {@code acquire} of the key, which then sees
 * the committed result. Store the result right before the commit to keep that wait short.
 * <p>
 * <b>Not promised</b>: the store issues no release notifications (waiters poll). Locks
 * are as safe as the database keeps its data: a failover to an asynchronous replica can
 * lose an acquisition.
 *
 * @since 0.1.0
 */
public class JdbcLockStore implements ResultStoringLockStore, AutoCloseable {

	/** How many times a DDL statement of {@link #createSchema()} is tried. */
	private static final int SCHEMA_ATTEMPTS = 3;

	/** The default table name. */
	public static final String DEFAULT_TABLE_NAME = "lock_store";

	/** The default longest time a call waits for the database. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	/** The longest key stored as it is, in bytes of UTF-8. */
	public static final int MAX_KEY_BYTES = 255;

	/**
	 * A table name: an unquoted SQL identifier of at most 48 characters (so that the
	 * names of its index and sequence stay within PostgreSQL's 63), optionally qualified
	 * by a schema.
	 */
	public static final Pattern TABLE_NAME_PATTERN = Pattern
		.compile("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,47}");

	/** How long after a row's lock and result expired the clean-up may delete it. */
	static final Duration CLEANUP_DELAY = Duration.ofMinutes(1);

	/** The most rows one clean-up statement deletes. */
	static final int CLEANUP_BATCH_SIZE = 100;

	/** The most clean-up statements of one clean-up run. */
	static final int CLEANUP_MAX_BATCHES = 50;

	private static final int ACQUIRE_ATTEMPTS = 3;

	/** The longest time-to-live: a hundred years. */
	private static final Duration MAX_TTL = Duration.ofDays(36500);

	private static final Executor DIRECT = Runnable::run;

	private static final Log logger = LogFactory.getLog(JdbcLockStore.class);

	private final DataSource dataSource;

	private final String tableName;

	private final Duration timeout;

	private final SQLExceptionTranslator translator = new SQLExceptionSubclassTranslator();

	private volatile @Nullable JdbcDialect dialect;

	private volatile boolean joinTransactionForResults;

	private @Nullable ScheduledExecutorService cleanup;

	/**
	 * Create a store on the {@value #DEFAULT_TABLE_NAME} table with a timeout of 2
	 * seconds.
	 * @param dataSource the data source
	 */
	public JdbcLockStore(DataSource dataSource) {
		this(dataSource, DEFAULT_TABLE_NAME, DEFAULT_TIMEOUT);
	}

	/**
	 * Create a store on the given table.
	 * @param dataSource the data source
	 * @param tableName the table, optionally qualified by its schema, matching
	 * {@link #TABLE_NAME_PATTERN}
	 * @param timeout the longest time a statement waits for the database, positive
	 */
	public JdbcLockStore(DataSource dataSource, String tableName, Duration timeout) {
		Assert.notNull(dataSource, "'dataSource' must not be null");
		Assert.notNull(tableName, "'tableName' must not be null");
		Assert.isTrue(isValidTableName(tableName), () -> "'tableName' must be an unquoted SQL identifier, "
				+ "optionally qualified by a schema (such as 'locks.lock_store'), but was '" + tableName + "'");
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(!timeout.isZero() && !timeout.isNegative(), () -> "'timeout' must be positive, was " + timeout);
		this.dataSource = dataSource;
		this.tableName = tableName;
		this.timeout = timeout;
	}

	/**
	 * Set whether {@link #putResult} joins the Spring-managed transaction active on this
	 * store's {@link DataSource} (through {@link DataSourceUtils}), if there is one, so
	 * that the result is written on that transaction's connection and commits or rolls
	 * back with it. Without such a transaction, or when {@code false} (the default), it
	 * runs in auto-commit on a connection of its own, like every other operation. While
	 * the transaction runs after the result was written, the lock row stays locked: the
	 * lock's {@code extend} and {@code release} wait for the commit or rollback.
	 * @param joinTransactionForResults whether results join the active transaction
	 */
	public void setJoinTransactionForResults(boolean joinTransactionForResults) {
		this.joinTransactionForResults = joinTransactionForResults;
	}

	/**
	 * Return whether {@link #putResult} joins the active transaction on the store's
	 * {@link DataSource}.
	 * @return whether results join the active transaction
	 * @see #setJoinTransactionForResults(boolean)
	 */
	public boolean isJoinTransactionForResults() {
		return this.joinTransactionForResults;
	}

	/**
	 * Return the data source the store takes its connections from.
	 * @return the data source
	 */
	public DataSource getDataSource() {
		return this.dataSource;
	}

	/**
	 * Return whether a table name is one that the store accepts.
	 * @param tableName the name
	 * @return whether it matches {@link #TABLE_NAME_PATTERN}
	 */
	public static boolean isValidTableName(String tableName) {
		return tableName != null && TABLE_NAME_PATTERN.matcher(tableName).matches();
	}

	/**
	 * Create the table, its index and its sequence if they do not exist, with the DDL of
	 * {@link #schemaScript(String, String)} for this database. Instances that start
	 * together may all call it: PostgreSQL's {@code IF NOT EXISTS} is not safe against a
	 * concurrent creation of the same object (it may fail on a unique index of its
	 * catalog), so a statement that fails is run again, up to {@value #SCHEMA_ATTEMPTS}
	 * times, and then finds the object there.
	 * @throws LockStoreException if the database cannot be reached or refuses the DDL
	 */
	public void createSchema() {
		call("create the table of", "", (connection) -> {
			try (Statement statement = connection.createStatement()) {
				if (dialect(connection).usesQueryTimeout()) {
					statement.setQueryTimeout(Math.max(30, queryTimeoutSeconds()));
				}
				for (String ddl : dialect(connection).schema(this.tableName)) {
					for (int attempt = 1;; attempt++) {
						try {
							statement.execute(ddl);
							break;
						}
						catch (SQLException ex) {
							if (attempt == SCHEMA_ATTEMPTS) {
								throw ex;
							}
							pauseBeforeSchemaRetry(attempt);
						}
					}
				}
			}
			return null;
		});
	}

	private static void pauseBeforeSchemaRetry(int attempt) throws SQLException {
		try {
			Thread.sleep(50L * attempt);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new SQLException("Interrupted while creating the lock table", ex);
		}
	}

	/**
	 * Return the DDL that creates the store's table, index and sequence, as a script of
	 * statements ended by {@code ;}. The scripts {@code schema-postgresql.sql} and
	 * {@code schema-h2.sql} in this package are these scripts for the default table name.
	 * @param platform {@code postgresql} or {@code h2}
	 * @param tableName the table, optionally qualified by its schema
	 * @return the script
	 */
	public static String schemaScript(String platform, String tableName) {
		Assert.isTrue(isValidTableName(tableName), () -> "Invalid table name '" + tableName + "'");
		JdbcDialect dialect = JdbcDialect.forPlatform(platform);
		return String.join(";\n\n", dialect.schema(tableName)) + ";\n";
	}

	/**
	 * Delete rows whose lock and result have been expired for a minute or more, in
	 * batches of {@value #CLEANUP_BATCH_SIZE}, at most
	 * {@value #CLEANUP_BATCH_SIZE}&nbsp;&times;&nbsp;{@value #CLEANUP_MAX_BATCHES} rows a
	 * call. Each batch is one short statement that skips rows locked by lock operations
	 * (on PostgreSQL), so the clean-up never makes them wait. Fencing tokens stay
	 * increasing after a row is deleted: they come from a sequence.
	 * @return the number of rows deleted
	 * @throws LockStoreException if the database cannot be reached
	 */
	public int cleanUp() {
		int deleted = 0;
		for (int batch = 0; batch < CLEANUP_MAX_BATCHES; batch++) {
			int rows = call("clean up expired rows of", "", (connection) -> {
				JdbcDialect dialect = dialect(connection);
				try (PreparedStatement statement = prepare(connection, dialect.cleanUp(this.tableName))) {
					long delay = CLEANUP_DELAY.toNanos() / 1000;
					statement.setLong(1, delay);
					statement.setLong(2, delay);
					statement.setInt(3, CLEANUP_BATCH_SIZE);
					statement.setLong(4, delay);
					return statement.executeUpdate();
				}
			});
			deleted += rows;
			if (rows < CLEANUP_BATCH_SIZE) {
				break;
			}
		}
		return deleted;
	}

	/**
	 * Run {@link #cleanUp()} every {@code interval} on a daemon thread of the store's
	 * own, until {@link #close()}. A failed clean-up is logged and tried again at the
	 * next interval.
	 * @param interval the time between two clean-ups, positive
	 */
	public synchronized void startCleanup(Duration interval) {
		Assert.notNull(interval, "'interval' must not be null");
		Assert.isTrue(!interval.isZero() && !interval.isNegative(), "'interval' must be positive");
		Assert.state(this.cleanup == null, "The clean-up is already started");
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "lock-jdbc-cleanup");
			thread.setDaemon(true);
			return thread;
		});
		executor.scheduleWithFixedDelay(this::cleanUpQuietly, interval.toMillis(), interval.toMillis(),
				TimeUnit.MILLISECONDS);
		this.cleanup = executor;
	}

	/**
	 * Stop the clean-up started by {@link #startCleanup(Duration)}, if any. The data
	 * source is not closed: it belongs to the caller.
	 */
	@Override
	public synchronized void close() {
		ScheduledExecutorService executor = this.cleanup;
		if (executor != null) {
			executor.shutdownNow();
			this.cleanup = null;
		}
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		Assert.notNull(token, "'token' must not be null");
		long ttlMicros = micros(ttl, "ttl");
		String storedKey = storedKey(key);
		return call("acquire", key, (connection) -> {
			JdbcDialect dialect = dialect(connection);
			for (int attempt = 1;; attempt++) {
				AcquireReply result = dialect.tryAcquire(this, connection, storedKey, token, ttlMicros);
				if (result != null) {
					return result;
				}
				if (attempt == ACQUIRE_ATTEMPTS) {
					// The row changed under every attempt: held, for an unknown time
					return AcquireReply.held(Duration.ofMillis(-1));
				}
			}
		});
	}

	@Override
	public boolean release(String key, String token) {
		Assert.notNull(token, "'token' must not be null");
		String storedKey = storedKey(key);
		return call("release", key, (connection) -> {
			try (PreparedStatement statement = prepare(connection, dialect(connection).release(this.tableName))) {
				statement.setString(1, storedKey);
				statement.setString(2, token);
				return statement.executeUpdate() == 1;
			}
		});
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		Assert.notNull(token, "'token' must not be null");
		long ttlMicros = micros(ttl, "ttl");
		String storedKey = storedKey(key);
		return call("extend", key, (connection) -> {
			try (PreparedStatement statement = prepare(connection, dialect(connection).extend(this.tableName))) {
				statement.setLong(1, ttlMicros);
				statement.setString(2, storedKey);
				statement.setString(3, token);
				return statement.executeUpdate() == 1;
			}
		});
	}

	/**
	 * Extend several locks in one batch of statements (one round trip with drivers that
	 * batch, such as PostgreSQL's).
	 */
	@Override
	public boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl) {
		Assert.notNull(keys, "'keys' must not be null");
		Assert.notNull(tokens, "'tokens' must not be null");
		Assert.isTrue(keys.size() == tokens.size(), "'keys' and 'tokens' must have the same size");
		long ttlMicros = micros(ttl, "ttl");
		if (keys.isEmpty()) {
			return new boolean[0];
		}
		return call("extend", keys.get(0) + ((keys.size() > 1) ? " and " + (keys.size() - 1) + " more" : ""),
				(connection) -> {
					try (PreparedStatement statement = prepare(connection,
							dialect(connection).extend(this.tableName))) {
						for (int i = 0; i < keys.size(); i++) {
							statement.setLong(1, ttlMicros);
							statement.setString(2, storedKey(keys.get(i)));
							statement.setString(3, tokens.get(i));
							statement.addBatch();
						}
						int[] counts = statement.executeBatch();
						boolean[] extended = new boolean[keys.size()];
						for (int i = 0; i < extended.length; i++) {
							extended[i] = counts[i] == 1;
						}
						return extended;
					}
				});
	}

	@Override
	public boolean putResult(String key, String token, byte[] result, Duration ttl) {
		Assert.notNull(token, "'token' must not be null");
		Assert.notNull(result, "'result' must not be null");
		long ttlMicros = micros(ttl, "ttl");
		String storedKey = storedKey(key);
		ConnectionCallback<Boolean> update = (connection) -> {
			try (PreparedStatement statement = prepare(connection, dialect(connection).putResult(this.tableName))) {
				statement.setBytes(1, result);
				statement.setLong(2, ttlMicros);
				statement.setString(3, storedKey);
				statement.setString(4, token);
				return statement.executeUpdate() == 1;
			}
		};
		if (this.joinTransactionForResults && TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.hasResource(this.dataSource)) {
			return callInTransaction("store the result of", key, update);
		}
		return call("store the result of", key, update);
	}

	@Override
	public byte @Nullable [] getResult(String key) {
		String storedKey = storedKey(key);
		return call("read the result of", key, (connection) -> {
			try (PreparedStatement statement = prepare(connection, dialect(connection).getResult(this.tableName))) {
				statement.setString(1, storedKey);
				try (ResultSet rows = statement.executeQuery()) {
					return rows.next() ? rows.getBytes(1) : null;
				}
			}
		});
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * One {@code SELECT} of the row's expiry time less the database's clock, which
	 * changes nothing, on the condition under which {@link #release} and {@link #extend}
	 * count the row held: an owner and an expiry time still ahead of the database's
	 * clock. It is bounded by the store's {@linkplain #getTimeout() timeout}, as every
	 * call.
	 */
	@Override
	public Duration timeToExpiry(String key) {
		String storedKey = storedKey(key);
		return call("read the time to expiry of", key, (connection) -> {
			try (PreparedStatement statement = prepare(connection, dialect(connection).timeToExpiry(this.tableName))) {
				statement.setString(1, storedKey);
				try (ResultSet rows = statement.executeQuery()) {
					long remaining = rows.next() ? rows.getLong(1) : 0;
					return (remaining > 0) ? Duration.ofNanos(remaining * 1000) : Duration.ZERO;
				}
			}
		});
	}

	/**
	 * Return the table's name.
	 * @return the table name, as configured
	 */
	public String getTableName() {
		return this.tableName;
	}

	/**
	 * Return the longest time a statement waits for the database.
	 * @return the timeout
	 */
	public Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * Return the value of the {@code lock_key} column under which a lock key is stored.
	 * @param key the store key
	 * @return the key itself, or its hash
	 */
	public static String storedKey(String key) {
		Assert.notNull(key, "'key' must not be null");
		return needsHash(key) ? HashedKeys.hash(key) : HashedKeys.limit(key, MAX_KEY_BYTES);
	}

	private static boolean needsHash(String key) {
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (c == '\u0000') {
				return true;
			}
			if (Character.isHighSurrogate(c)) {
				if (i + 1 >= key.length() || !Character.isLowSurrogate(key.charAt(i + 1))) {
					return true;
				}
				i++;
			}
			else if (Character.isLowSurrogate(c)) {
				return true;
			}
		}
		return false;
	}

	PreparedStatement prepare(Connection connection, String sql) throws SQLException {
		PreparedStatement statement = connection.prepareStatement(sql);
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

	private int queryTimeoutSeconds() {
		long millis = this.timeout.toMillis();
		return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (millis + 999) / 1000));
	}

	private JdbcDialect dialect(Connection connection) throws SQLException {
		JdbcDialect dialect = this.dialect;
		if (dialect == null) {
			DatabaseMetaData metaData = connection.getMetaData();
			dialect = JdbcDialect.forProduct(metaData.getDatabaseProductName());
			if (dialect == null) {
				throw new SQLFeatureNotSupportedException("The JDBC lock store supports PostgreSQL and H2, not "
						+ metaData.getDatabaseProductName() + " " + metaData.getDatabaseProductVersion());
			}
			this.dialect = dialect;
		}
		return dialect;
	}

	private <T> T call(String operation, String key, ConnectionCallback<T> action) {
		Connection connection = null;
		boolean restoreAutoCommit = false;
		int networkTimeout = -1;
		try {
			connection = this.dataSource.getConnection();
			if (!connection.getAutoCommit()) {
				connection.setAutoCommit(true);
				restoreAutoCommit = true;
			}
			networkTimeout = setNetworkTimeout(connection);
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
	private <T> T callInTransaction(String operation, String key, ConnectionCallback<T> action) {
		Connection connection = null;
		int networkTimeout = -1;
		try {
			connection = DataSourceUtils.getConnection(this.dataSource);
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
			if (networkTimeout >= 0 && !connection.isClosed()) {
				connection.setNetworkTimeout(DIRECT, networkTimeout);
			}
			if (autoCommit && !connection.isClosed()) {
				connection.setAutoCommit(false);
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

	private static long micros(Duration ttl, String name) {
		Assert.notNull(ttl, () -> "'" + name + "' must not be null");
		Assert.isTrue(!ttl.isZero() && !ttl.isNegative(), () -> "'" + name + "' must be positive, was " + ttl);
		Duration bounded = (ttl.compareTo(MAX_TTL) > 0) ? MAX_TTL : ttl;
		return Math.max(1, bounded.toNanos() / 1000);
	}

	private void cleanUpQuietly() {
		try {
			int deleted = cleanUp();
			if (deleted > 0 && logger.isDebugEnabled()) {
				logger.debug("Deleted " + deleted + " expired rows of " + this.tableName);
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not clean up expired locks of table '" + this.tableName + "': " + ex.getMessage());
		}
	}

	/**
	 * Work with a connection.
	 */
	@FunctionalInterface
	private interface ConnectionCallback<T> {

		T doInConnection(Connection connection) throws SQLException;

	}

}
