package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
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

	static final JdbcDialect POSTGRESQL = new PostgreSql();

	static final JdbcDialect H2 = new H2();

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
			throw new IllegalArgumentException("Unknown platform '" + platform + "': postgresql or h2");
		}
		return dialect;
	}

	/**
	 * Return whether statements get a query timeout. PostgreSQL's driver enforces one by
	 * sending a cancel request on a new connection, and waits for it (up to its
	 * {@code cancelSignalTimeout}, 10 s) even when the server does not answer: there the
	 * connection's network timeout bounds every call instead.
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

	private static final class PostgreSql extends JdbcDialect {

		private static final String NOW = "clock_timestamp()";

		private static final String PLUS_TTL = "clock_timestamp() + ? * INTERVAL '1 microsecond'";

		private static final String REMAINING_MICROS = "CAST(EXTRACT(EPOCH FROM (expires_at - clock_timestamp()))"
				+ " * 1000000 AS BIGINT)";

		private static final String ACQUIRE = """
				WITH acquired AS (
					INSERT INTO %1$s AS l (lock_key, owner_token, expires_at, fence)
					VALUES (?, ?, clock_timestamp() + ? * INTERVAL '1 microsecond', nextval('%2$s'))
					ON CONFLICT (lock_key) DO UPDATE
					SET owner_token = EXCLUDED.owner_token, expires_at = EXCLUDED.expires_at,
						fence = nextval('%2$s')
					WHERE l.owner_token IS NULL OR l.expires_at <= clock_timestamp()
					RETURNING l.fence
				)
				SELECT fence, NULL::BIGINT AS remaining FROM acquired
				UNION ALL
				SELECT NULL, CAST(EXTRACT(EPOCH FROM (h.expires_at - clock_timestamp())) * 1000000 AS BIGINT)
				FROM %1$s h
				WHERE h.lock_key = ? AND h.owner_token IS NOT NULL AND NOT EXISTS (SELECT 1 FROM acquired)""";

		PostgreSql() {
			super(NOW, PLUS_TTL, REMAINING_MICROS);
		}

		@Override
		boolean usesQueryTimeout() {
			return false;
		}

		@Override
		List<String> schema(String table) {
			return List.of(sql("CREATE SEQUENCE IF NOT EXISTS %2$s", table), sql("""
					CREATE TABLE IF NOT EXISTS %1$s (
						lock_key VARCHAR(255) COLLATE "C" NOT NULL PRIMARY KEY,
						owner_token VARCHAR(255),
						expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
						fence BIGINT NOT NULL,
						result_data BYTEA,
						result_expires_at TIMESTAMP WITH TIME ZONE
					)""", table), "CREATE INDEX IF NOT EXISTS " + unqualified(table) + "_expires_at_idx ON " + table
					+ " (expires_at)");
		}

		@Override
		@Nullable AcquireReply tryAcquire(JdbcConnections connections, Connection connection, String key, String token,
				long ttlMicros) throws SQLException {
			try (PreparedStatement statement = connections.prepare(connection, sql(ACQUIRE, connections.tableName()))) {
				statement.setString(1, key);
				statement.setString(2, token);
				statement.setLong(3, ttlMicros);
				statement.setString(4, key);
				try (ResultSet rows = statement.executeQuery()) {
					if (!rows.next()) {
						// Held by a row that our statement's snapshot does not see yet
						return null;
					}
					long fence = rows.getLong(1);
					if (!rows.wasNull()) {
						return AcquireReply.acquired(fence);
					}
					long remaining = rows.getLong(2);
					return (remaining > 0) ? AcquireReply.held(Duration.ofNanos(remaining * 1000)) : null;
				}
			}
		}

		@Override
		String cleanUp(String table) {
			return sql("""
					DELETE FROM %1$s WHERE lock_key IN (
						SELECT lock_key FROM %1$s
						WHERE expires_at < clock_timestamp() - ? * INTERVAL '1 microsecond'
						AND (result_expires_at IS NULL
							OR result_expires_at < clock_timestamp() - ? * INTERVAL '1 microsecond')
						LIMIT ? FOR UPDATE SKIP LOCKED)
					AND expires_at < clock_timestamp() - ? * INTERVAL '1 microsecond'""", table);
		}

	}

	private static final class H2 extends JdbcDialect {

		private static final String NOW = "CURRENT_TIMESTAMP";

		private static final String PLUS_TTL = "DATEADD(MICROSECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)";

		private static final String REMAINING_MICROS = "DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, expires_at)";

		private static final String TAKE_OVER = "SELECT fence FROM FINAL TABLE (UPDATE %1$s SET owner_token = ?, "
				+ "expires_at = " + PLUS_TTL + ", fence = NEXT VALUE FOR %2$s "
				+ "WHERE lock_key = ? AND (owner_token IS NULL OR expires_at <= CURRENT_TIMESTAMP))";

		private static final String INSERT = "SELECT fence FROM FINAL TABLE (INSERT INTO %1$s "
				+ "(lock_key, owner_token, expires_at, fence) VALUES (?, ?, " + PLUS_TTL + ", NEXT VALUE FOR %2$s))";

		private static final String HOLDER = "SELECT DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, expires_at), fence "
				+ "FROM %1$s WHERE lock_key = ? AND owner_token IS NOT NULL";

		H2() {
			super(NOW, PLUS_TTL, REMAINING_MICROS);
		}

		@Override
		boolean usesQueryTimeout() {
			return true;
		}

		@Override
		List<String> schema(String table) {
			int dot = table.lastIndexOf('.');
			String schemaPrefix = (dot >= 0) ? table.substring(0, dot + 1) : "";
			return List.of(sql("CREATE SEQUENCE IF NOT EXISTS %2$s", table), sql("""
					CREATE TABLE IF NOT EXISTS %1$s (
						lock_key VARCHAR(255) NOT NULL PRIMARY KEY,
						owner_token VARCHAR(255),
						expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
						fence BIGINT NOT NULL,
						result_data VARBINARY,
						result_expires_at TIMESTAMP(6) WITH TIME ZONE
					)""", table), "CREATE INDEX IF NOT EXISTS " + schemaPrefix + unqualified(table)
					+ "_expires_at_idx ON " + table + " (expires_at)");
		}

		@Override
		@Nullable AcquireReply tryAcquire(JdbcConnections connections, Connection connection, String key, String token,
				long ttlMicros) throws SQLException {
			String table = connections.tableName();
			try (PreparedStatement statement = connections.prepare(connection, sql(TAKE_OVER, table))) {
				statement.setString(1, token);
				statement.setLong(2, ttlMicros);
				statement.setString(3, key);
				try (ResultSet rows = statement.executeQuery()) {
					if (rows.next()) {
						return AcquireReply.acquired(rows.getLong(1));
					}
				}
			}
			try (PreparedStatement statement = connections.prepare(connection, sql(INSERT, table))) {
				statement.setString(1, key);
				statement.setString(2, token);
				statement.setLong(3, ttlMicros);
				try (ResultSet rows = statement.executeQuery()) {
					return rows.next() ? AcquireReply.acquired(rows.getLong(1)) : null;
				}
			}
			catch (SQLException ex) {
				if (!"23505".equals(ex.getSQLState())) {
					throw ex;
				}
				// Another owner's row: report its time-to-live
				return held(connections, connection, key);
			}
		}

		private @Nullable AcquireReply held(JdbcConnections connections, Connection connection, String key)
				throws SQLException {
			try (PreparedStatement statement = connections.prepare(connection, sql(HOLDER, connections.tableName()))) {
				statement.setString(1, key);
				try (ResultSet rows = statement.executeQuery()) {
					if (rows.next()) {
						long remaining = rows.getLong(1);
						if (remaining > 0) {
							return AcquireReply.held(Duration.ofNanos(remaining * 1000));
						}
					}
					return null;
				}
			}
		}

		@Override
		String cleanUp(String table) {
			return sql("""
					DELETE FROM %1$s WHERE lock_key IN (
						SELECT lock_key FROM %1$s
						WHERE expires_at < DATEADD(MICROSECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP)
						AND (result_expires_at IS NULL
							OR result_expires_at < DATEADD(MICROSECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP))
						FETCH FIRST ? ROWS ONLY)
					AND expires_at < DATEADD(MICROSECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP)""", table);
		}

	}

}
