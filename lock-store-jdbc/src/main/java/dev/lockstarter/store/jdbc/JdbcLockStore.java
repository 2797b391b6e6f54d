package dev.lockstarter.store.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.HashedKeys;
import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.ResultStoringLockStore;
import dev.lockstarter.store.SharedLockStore;
import dev.lockstarter.store.StoredLock;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.util.Assert;

/**
 * {@link LockStore} on a relational database through JDBC: PostgreSQL (the primary
 * target), MariaDB (10.5 or later) and H2.
 * <p>
 * A lock is a row of one table ({@value #DEFAULT_TABLE_NAME} by default): its key, the
 * owner token ({@code NULL} when free), its expiry time, its fencing token, and the
 * result kept next to it (see {@link ResultStoringLockStore}). Every operation is one
 * conditional statement, in auto-commit, on a connection of its own; a failed acquisition
 * writes nothing, and a release frees the row but keeps it, so its result outlives the
 * release.
 * <ul>
 * <li><b>Expiry</b> is decided by the database server's clock, with microsecond
 * precision, never by the application's.</li>
 * <li><b>Fencing tokens</b> come from one database sequence per table, drawn in the
 * statement that acquires, so they strictly increase across owners, takeovers and the
 * {@linkplain #cleanUp() clean-up} of old rows.</li>
 * <li><b>Keys</b> of at most {@value #MAX_KEY_BYTES} bytes of UTF-8 without NUL or
 * unpaired surrogates are stored as they are; any other key, and any key starting with
 * {@code "#sha256:"}, as {@code "#sha256:"} and its SHA-256.</li>
 * <li><b>Bounds</b>: each call waits at most the store's timeout for a connection of the
 * data source, whatever the pool's own wait (it asks for it on a thread of the store's
 * own; renewals on threads that acquisitions do not wait on), then sets the connection's
 * network timeout to the store's timeout, and fails with {@link LockStoreException} when
 * the pool or the database does not answer in time, or the data source fails, with an
 * unchecked exception or not. The server ends each statement at the same bound, so that
 * one whose caller gave up does not run on: PostgreSQL through a
 * {@code statement_timeout} sent with the statement, MariaDB and H2 through a query
 * timeout. A call whose answer is lost may still have been applied: it is reported as a
 * failure.</li>
 * <li><b>Transactions</b>: the store never joins the caller's transaction, except
 * {@link #putResult} when {@link #setJoinTransactionForResults(boolean)} asks for
 * it.</li>
 * <li><b>Shared locks</b> (permits, read/write locks) are rows of two tables beside the
 * lock table, {@code _holders} (a row per place) and {@code _writers} (a row per waiting
 * writer); an acquisition, and the extension of a place, is a short transaction of its
 * own that first takes a lock on the key (a transaction-scoped advisory lock on
 * PostgreSQL, a row lock on the key's row of a table of keys on MariaDB and H2), with the
 * same expiry, fencing sequence, timeout and clean-up as the mutexes. A refused writer's
 * wait is recorded for its {@code waitFor}, but no longer than its time-to-live.</li>
 * <li><b>Inspection</b> ({@link InspectableLockStore}): the held mutexes under a key
 * prefix are read from the primary key's index, and a force-release frees a held row as a
 * release does, whatever its owner, keeping its result.</li>
 * <li><b>Release notifications</b>: none from this class, whose waiters poll; on
 * PostgreSQL, {@link PostgreSqlJdbcLockStore} (which {@link #create} returns there)
 * announces releases with {@code LISTEN}/{@code NOTIFY}. MariaDB and H2 have no such
 * mechanism.</li>
 * <li><b>Not promised</b>: safety across a failover to an asynchronous replica that lost
 * an acquisition.</li>
 * </ul>
 * The statements, timeouts, clean-up and what serializes each pair of operations are
 * described in the reference documentation's page of the JDBC store
 * ({@code docs/stores/jdbc.md}).
 *
 * @since 0.1.0
 */
public class JdbcLockStore implements ResultStoringLockStore, SharedLockStore, InspectableLockStore, AutoCloseable {

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

	/** The longest time-to-live: a hundred years. */
	private static final Duration MAX_TTL = Duration.ofDays(36500);

	private final Duration timeout;

	private final JdbcConnections connections;

	private final JdbcCleanup cleanup;

	private final JdbcMutexes mutexes;

	private final JdbcResults results;

	private final JdbcSharedLocks sharedLocks;

	private final JdbcLockInspection inspection;

	private volatile boolean joinTransactionForResults;

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
	 * @param timeout the longest time a call waits for a connection of the data source,
	 * and then for each statement, positive
	 */
	public JdbcLockStore(DataSource dataSource, String tableName, Duration timeout) {
		this(dataSource, tableName, timeout, false);
	}

	/**
	 * Create a store on the given table, whose statements that free a key announce it on
	 * the table's PostgreSQL channel if {@code announceReleases}.
	 */
	JdbcLockStore(DataSource dataSource, String tableName, Duration timeout, boolean announceReleases) {
		Assert.notNull(dataSource, "'dataSource' must not be null");
		Assert.notNull(tableName, "'tableName' must not be null");
		Assert.isTrue(isValidTableName(tableName), () -> "'tableName' must be an unquoted SQL identifier, "
				+ "optionally qualified by a schema (such as 'locks.lock_store'), but was '" + tableName + "'");
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(!timeout.isZero() && !timeout.isNegative(), () -> "'timeout' must be positive, was " + timeout);
		this.timeout = timeout;
		this.connections = new JdbcConnections(dataSource, tableName, timeout,
				announceReleases ? PostgreSqlDialect.releaseChannel(tableName) : null);
		this.cleanup = new JdbcCleanup(this.connections);
		this.mutexes = new JdbcMutexes(this.connections);
		this.results = new JdbcResults(this.connections);
		this.sharedLocks = new JdbcSharedLocks(this.connections);
		this.inspection = new JdbcLockInspection(this.connections);
	}

	/**
	 * Create the store that suits the data source's database: on PostgreSQL a
	 * {@link PostgreSqlJdbcLockStore}, which announces releases to waiters, elsewhere a
	 * {@code JdbcLockStore}, whose waiters poll. The database is read from one
	 * connection, within the timeout.
	 * @param dataSource the data source
	 * @param tableName the table, optionally qualified by its schema, matching
	 * {@link #TABLE_NAME_PATTERN}
	 * @param timeout the longest time a call waits for a connection of the data source,
	 * and then for each statement, positive
	 * @return the store
	 * @throws LockStoreException if the database cannot be reached, or is not one the
	 * store supports
	 * @since 0.1.0
	 */
	public static JdbcLockStore create(DataSource dataSource, String tableName, Duration timeout) {
		JdbcLockStore store = new JdbcLockStore(dataSource, tableName, timeout);
		JdbcConnections connections = store.connections;
		JdbcDialect dialect = connections.call("identify the database", "", connections::dialect);
		return (dialect == JdbcDialect.POSTGRESQL) ? new PostgreSqlJdbcLockStore(dataSource, tableName, timeout)
				: store;
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
		return this.connections.dataSource();
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
	 * Create the table, its index and its sequence, and the tables of shared locks, if
	 * they do not exist, with the DDL of {@link #schemaScript(String, String)} for this
	 * database. Instances that start together may all call it: PostgreSQL's
	 * {@code IF NOT EXISTS} is not safe against a concurrent creation of the same object
	 * (it may fail on a unique index of its catalog), so a statement that fails is run
	 * again, up to 3 times, and then finds the object there.
	 * @throws LockStoreException if the database cannot be reached or refuses the DDL
	 */
	public void createSchema() {
		JdbcSchema.create(this.connections);
	}

	/**
	 * Return the DDL that creates the store's tables, indexes and sequence, as a script
	 * of statements ended by {@code ;}. The scripts {@code schema-postgresql.sql},
	 * {@code schema-mariadb.sql} and {@code schema-h2.sql} in this package are these
	 * scripts for the default table name.
	 * @param platform {@code postgresql}, {@code mariadb} or {@code h2}
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
	 * batches of 100, at most 5,000 rows a call; then, alike, the places and writers'
	 * waits of shared locks that ended a minute ago or more. Each batch is one short
	 * statement that skips rows locked by lock operations (on PostgreSQL), so the
	 * clean-up never makes them wait. Fencing tokens stay increasing after a row is
	 * deleted: they come from a sequence.
	 * @return the number of rows deleted
	 * @throws LockStoreException if the database cannot be reached
	 */
	public int cleanUp() {
		return this.cleanup.cleanUp();
	}

	/**
	 * Run {@link #cleanUp()} every {@code interval} on a daemon thread of the store's
	 * own, until {@link #close()}. A failed clean-up is logged and tried again at the
	 * next interval.
	 * @param interval the time between two clean-ups, positive
	 */
	public void startCleanup(Duration interval) {
		this.cleanup.start(interval);
	}

	/**
	 * Stop the clean-up started by {@link #startCleanup(Duration)}, if any. The data
	 * source is not closed: it belongs to the caller. The threads on which the store asks
	 * for connections are daemons that end a minute after their last request.
	 */
	@Override
	public void close() {
		this.cleanup.stop();
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		Assert.notNull(token, "'token' must not be null");
		long ttlMicros = micros(ttl, "ttl");
		return this.mutexes.acquire(key, storedKey(key), token, ttlMicros);
	}

	@Override
	public boolean release(String key, String token) {
		Assert.notNull(token, "'token' must not be null");
		return this.mutexes.release(key, storedKey(key), token);
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		Assert.notNull(token, "'token' must not be null");
		long ttlMicros = micros(ttl, "ttl");
		return this.mutexes.extend(key, storedKey(key), token, ttlMicros);
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
		return keys.isEmpty() ? new boolean[0] : this.mutexes.extendAll(keys, tokens, ttlMicros);
	}

	@Override
	public boolean putResult(String key, String token, byte[] result, Duration ttl) {
		Assert.notNull(token, "'token' must not be null");
		Assert.notNull(result, "'result' must not be null");
		long ttlMicros = micros(ttl, "ttl");
		return this.results.put(key, storedKey(key), token, result, ttlMicros, this.joinTransactionForResults);
	}

	@Override
	public byte @Nullable [] getResult(String key) {
		return this.results.get(key, storedKey(key));
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
		return this.mutexes.timeToExpiry(key, storedKey(key));
	}

	@Override
	public AcquireReply tryAcquirePermit(String key, String token, Duration ttl, int permits) {
		Assert.isTrue(permits > 0, () -> "'permits' must be positive, was " + permits);
		return acquireShared(key, token, ttl, JdbcSharedLocks.Kind.PERMIT, permits, Duration.ZERO);
	}

	@Override
	public AcquireReply tryAcquireRead(String key, String token, Duration ttl) {
		return acquireShared(key, token, ttl, JdbcSharedLocks.Kind.READ, 0, Duration.ZERO);
	}

	@Override
	public AcquireReply tryAcquireWrite(String key, String token, Duration ttl, Duration waitFor) {
		Assert.notNull(waitFor, "'waitFor' must not be null");
		Assert.isTrue(!waitFor.isNegative(), () -> "'waitFor' must not be negative, was " + waitFor);
		return acquireShared(key, token, ttl, JdbcSharedLocks.Kind.WRITE, 1, waitFor);
	}

	private AcquireReply acquireShared(String key, String token, Duration ttl, JdbcSharedLocks.Kind kind, int permits,
			Duration waitFor) {
		Assert.notNull(token, "'token' must not be null");
		long ttlMicros = micros(ttl, "ttl");
		long waitForMicros = waitFor.isZero() ? 0 : micros(waitFor, "waitFor");
		return this.sharedLocks.acquire(key, storedKey(key), token, ttlMicros, kind, permits, waitForMicros);
	}

	@Override
	public boolean releaseShared(String key, String token) {
		Assert.notNull(token, "'token' must not be null");
		return this.sharedLocks.release(key, storedKey(key), token);
	}

	@Override
	public boolean extendShared(String key, String token, Duration ttl) {
		Assert.notNull(token, "'token' must not be null");
		long ttlMicros = micros(ttl, "ttl");
		return this.sharedLocks.extend(key, storedKey(key), token, ttlMicros);
	}

	@Override
	public Duration sharedTimeToExpiry(String key) {
		return this.sharedLocks.timeToExpiry(key, storedKey(key));
	}

	@Override
	public List<StoredLock> holders(String keyPrefix, int limit) {
		return this.inspection.holders(keyPrefix, limit);
	}

	@Override
	public boolean forceRelease(String key) {
		return this.inspection.forceRelease(key, storedKey(key));
	}

	JdbcConnections connections() {
		return this.connections;
	}

	/**
	 * Return the table's name.
	 * @return the table name, as configured
	 */
	public String getTableName() {
		return this.connections.tableName();
	}

	/**
	 * Return the longest time a call waits for a connection, and then for each statement.
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

	private static long micros(Duration ttl, String name) {
		Assert.notNull(ttl, () -> "'" + name + "' must not be null");
		Assert.isTrue(!ttl.isZero() && !ttl.isNegative(), () -> "'" + name + "' must be positive, was " + ttl);
		Duration bounded = (ttl.compareTo(MAX_TTL) > 0) ? MAX_TTL : ttl;
		return Math.max(1, bounded.toNanos() / 1000);
	}

}
