package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;

/**
 * The SQL of the {@link JdbcLockStore} for one database. Every statement compares and
 * computes expiry times with the database's clock. Tables are named with {@code %1$s},
 * their fencing sequence with {@code %2$s}.
 */
abstract class JdbcDialect {

	static final JdbcDialect POSTGRESQL = new PostgreSqlDialect();

	static final JdbcDialect H2 = new H2Dialect();

	static final JdbcDialect MARIADB = new MariaDbDialect();

	private static final Map<Statement, String> STATEMENTS = new ConcurrentHashMap<>();

	private final String now;

	private final String plusTtl;

	private final String held;

	private final String remainingMicros;

	/**
	 * Create a dialect.
	 * @param now the database's current time
	 * @param plusTtl the database's current time plus a time-to-live parameter in µs
	 * @param remainingMicros the µs from the database's current time to
	 * {@code expires_at}, as a {@code BIGINT}
	 */
	JdbcDialect(String now, String plusTtl, String remainingMicros) {
		this.now = now;
		this.plusTtl = plusTtl;
		this.held = "lock_key = ? AND owner_token = ? AND expires_at > " + now;
		this.remainingMicros = remainingMicros;
	}

	/**
	 * Return the dialect of a database product, as JDBC names it.
	 */
	static @Nullable JdbcDialect forProduct(String productName) {
		return switch (String.valueOf(productName).toLowerCase(Locale.ROOT)) {
			case "postgresql" -> POSTGRESQL;
			case "mariadb" -> MARIADB;
			case "h2" -> H2;
			default -> null;
		};
	}

	/**
	 * Return the dialect of a platform name, as in the schema scripts' names.
	 */
	static JdbcDialect forPlatform(String platform) {
		JdbcDialect dialect = forProduct(platform);
		if (dialect == null) {
			throw new IllegalArgumentException("Unknown platform '" + platform + "': postgresql, mariadb or h2");
		}
		return dialect;
	}

	/**
	 * Return whether statements get a query timeout. PostgreSQL's driver enforces one by
	 * sending a cancel request on a new connection, and waits for it (up to its
	 * {@code cancelSignalTimeout}, 10 s) even when the server does not answer: there the
	 * connection's network timeout bounds every call instead. MariaDB's driver has the
	 * server enforce it, without another connection.
	 */
	abstract boolean usesQueryTimeout();

	/**
	 * Return the DDL statements that create the store's objects if they do not exist.
	 */
	abstract List<String> schema(String table);

	/**
	 * Try to acquire; {@code null} when the row changed under the attempt, to try again.
	 */
	abstract @Nullable AcquireReply tryAcquire(JdbcConnections connections, Connection connection, String key,
			String token, long ttlMicros) throws SQLException;

	/** Parameters: key, token. */
	final String release(String table) {
		return sql("UPDATE %1$s SET owner_token = NULL, expires_at = " + this.now + " WHERE " + this.held, table);
	}

	/** Parameters: time-to-live in µs, key, token. */
	final String extend(String table) {
		return sql("UPDATE %1$s SET expires_at = " + this.plusTtl + " WHERE " + this.held, table);
	}

	/**
	 * Return the statement that extends several locks at once, or {@code null} to batch
	 * {@link #extend}. Parameters: time-to-live in µs, an array of keys, an array of the
	 * tokens of those keys. Two columns, a row per lock extended: its key and token.
	 */
	@Nullable String extendAll(String table) {
		return null;
	}

	/** Parameters: result, time-to-live in µs, key, token. */
	final String putResult(String table) {
		return sql("UPDATE %1$s SET result_data = ?, result_expires_at = " + this.plusTtl + " WHERE " + this.held,
				table);
	}

	/**
	 * Parameters: key. One column, the holder's remaining time-to-live in µs; no row when
	 * no one holds the lock (the same expiry rule as the held condition of the other
	 * statements).
	 */
	final String timeToExpiry(String table) {
		return sql("SELECT " + this.remainingMicros + " FROM %1$s WHERE lock_key = ? AND owner_token IS NOT NULL"
				+ " AND expires_at > " + this.now, table);
	}

	/** Parameters: key. One column, the result. */
	final String getResult(String table) {
		return sql("SELECT result_data FROM %1$s WHERE lock_key = ? AND result_expires_at > " + this.now, table);
	}

	/** Parameters: delay in µs, delay in µs, batch size, delay in µs. */
	abstract String cleanUp(String table);

	/** The database's current time, in SQL. */
	final String now() {
		return this.now;
	}

	/** The database's current time plus a time-to-live parameter in µs, in SQL. */
	final String plusTtl() {
		return this.plusTtl;
	}

	/** The µs from the database's current time to {@code expires_at}, in SQL. */
	final String remainingMicros() {
		return this.remainingMicros;
	}

	/**
	 * Return the least string above every key that starts with a prefix, in the order of
	 * the key column, or {@code null} if there is none: the keys from the prefix
	 * (included) to it (excluded) are those that start with the prefix, a range that the
	 * primary key's index finds. The key column compares code points (the byte order of
	 * UTF-8: PostgreSQL's {@code "C"} collation, MariaDB's {@code utf8mb4_nopad_bin}), so
	 * the prefix's last code point is followed by the next one, skipping the surrogates.
	 * @param prefix a prefix without unpaired surrogates
	 */
	@Nullable String prefixEnd(String prefix) {
		StringBuilder end = new StringBuilder(prefix);
		while (!end.isEmpty()) {
			int last = end.codePointBefore(end.length());
			end.setLength(end.length() - Character.charCount(last));
			if (last < Character.MAX_CODE_POINT) {
				return end
					.appendCodePoint((last + 1 == Character.MIN_SURROGATE) ? Character.MAX_SURROGATE + 1 : last + 1)
					.toString();
			}
		}
		return null;
	}

	/**
	 * Return the DDL statements that create the tables of shared locks (holders and
	 * waiting writers, see {@link JdbcSharedLocks}) if they do not exist.
	 */
	abstract List<String> sharedSchema(String table);

	/**
	 * Serialize the shared-lock operations on a key until the end of the connection's
	 * transaction, which runs at READ COMMITTED, so that the statements that follow see
	 * every place granted before.
	 */
	abstract void lockKey(JdbcConnections connections, Connection connection, String key) throws SQLException;

	/**
	 * Return whether {@link #lockKey} sets the transaction's isolation itself; if not,
	 * the caller sets READ COMMITTED on the connection.
	 */
	abstract boolean setsIsolation();

	/**
	 * Parameters: key, token, kind, time-to-live in µs. Grants the place (again, should
	 * the token hold an expired one) and returns one row and column, its fencing token.
	 */
	abstract String grantPlace(String table);

	/**
	 * Parameters: key, token, wait in µs. Records or prolongs a writer's wait.
	 */
	abstract String recordWait(String table);

	/**
	 * Return the clean-up statements of the shared-lock tables, each with the parameters:
	 * delay in µs, batch size.
	 */
	abstract List<String> sharedCleanUp(String table);

	static String sequence(String table) {
		return table + "_fence_seq";
	}

	static String unqualified(String table) {
		return table.substring(table.lastIndexOf('.') + 1);
	}

	/**
	 * Return a statement for a table, formatted once per template and table: the calls of
	 * a store use a handful of statements, and none is rebuilt on the request path.
	 */
	static String sql(String template, String table) {
		return STATEMENTS.computeIfAbsent(new Statement(template, table),
				(statement) -> String.format(template, table, sequence(table)));
	}

	private record Statement(String template, String table) {

	}

}
