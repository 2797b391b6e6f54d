package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;

/**
 * The SQL of the {@link JdbcLockStore} on H2: an acquisition is a conditional
 * {@code UPDATE}, then an {@code INSERT} if there was no row, whose duplicate-key failure
 * means held; expiry follows {@code CURRENT_TIMESTAMP}. Statements get a query timeout.
 * The operations of a shared lock's key are serialized by the row lock on the key's row
 * of a table of keys, created if missing, then selected {@code FOR UPDATE}.
 */
final class H2Dialect extends JdbcDialect {

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

	private static final String ADD_KEY = "MERGE INTO %1$s_keys (lock_key) KEY (lock_key) VALUES (?)";

	private static final String LOCK_KEY = "SELECT lock_key FROM %1$s_keys WHERE lock_key = ? FOR UPDATE";

	H2Dialect() {
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
		List<String> schema = new ArrayList<>();
		schema.add(sql("CREATE SEQUENCE IF NOT EXISTS %2$s", table));
		schema.add(sql("""
				CREATE TABLE IF NOT EXISTS %1$s (
					lock_key VARCHAR(255) NOT NULL PRIMARY KEY,
					owner_token VARCHAR(255),
					expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
					fence BIGINT NOT NULL,
					result_data VARBINARY,
					result_expires_at TIMESTAMP(6) WITH TIME ZONE
				)""", table));
		schema.add("CREATE INDEX IF NOT EXISTS " + schemaPrefix + unqualified(table) + "_expires_at_idx ON " + table
				+ " (expires_at)");
		schema.addAll(sharedSchema(table));
		return schema;
	}

	@Override
	List<String> sharedSchema(String table) {
		int dot = table.lastIndexOf('.');
		String index = ((dot >= 0) ? table.substring(0, dot + 1) : "") + unqualified(table);
		return List.of(sql("""
				CREATE TABLE IF NOT EXISTS %1$s_holders (
					lock_key VARCHAR(255) NOT NULL,
					owner_token VARCHAR(255) NOT NULL,
					kind VARCHAR(6) NOT NULL,
					expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
					fence BIGINT NOT NULL,
					PRIMARY KEY (lock_key, owner_token)
				)""", table),
				"CREATE INDEX IF NOT EXISTS " + index + "_holders_idx ON " + table + "_holders (expires_at)", sql("""
						CREATE TABLE IF NOT EXISTS %1$s_writers (
							lock_key VARCHAR(255) NOT NULL,
							owner_token VARCHAR(255) NOT NULL,
							waits_until TIMESTAMP(6) WITH TIME ZONE NOT NULL,
							PRIMARY KEY (lock_key, owner_token)
						)""", table),
				"CREATE INDEX IF NOT EXISTS " + index + "_writers_idx ON " + table + "_writers (waits_until)",
				sql("CREATE TABLE IF NOT EXISTS %1$s_keys (lock_key VARCHAR(255) NOT NULL PRIMARY KEY)", table));
	}

	@Override
	void lockKey(JdbcConnections connections, Connection connection, String key) throws SQLException {
		String table = connections.tableName();
		for (int attempt = 1;; attempt++) {
			try (PreparedStatement statement = connections.prepare(connection, sql(ADD_KEY, table))) {
				statement.setString(1, key);
				statement.executeUpdate();
			}
			catch (SQLException ex) {
				// Another transaction added the key first: it is there now
				if (!"23505".equals(ex.getSQLState()) || attempt == 3) {
					throw ex;
				}
			}
			try (PreparedStatement statement = connections.prepare(connection, sql(LOCK_KEY, table))) {
				statement.setString(1, key);
				try (ResultSet rows = statement.executeQuery()) {
					if (rows.next()) {
						return;
					}
				}
			}
			// The clean-up deleted the key's row in between: add it again
			if (attempt == 3) {
				throw new SQLException("The row of shared lock '" + key + "' went away 3 times", "40001");
			}
		}
	}

	/**
	 * H2 compares strings as Java does, by UTF-16 code units: the prefix's last code unit
	 * is followed by the next one, which may leave half of a pair, as H2 strings may.
	 */
	@Override
	@Nullable String prefixEnd(String prefix) {
		StringBuilder end = new StringBuilder(prefix);
		while (!end.isEmpty()) {
			char last = end.charAt(end.length() - 1);
			end.setLength(end.length() - 1);
			if (last < Character.MAX_VALUE) {
				return end.append((char) (last + 1)).toString();
			}
		}
		return null;
	}

	@Override
	boolean setsIsolation() {
		return false;
	}

	@Override
	String grantPlace(String table) {
		return sql("SELECT fence FROM FINAL TABLE (MERGE INTO %1$s_holders "
				+ "(lock_key, owner_token, kind, expires_at, fence) KEY (lock_key, owner_token) VALUES (?, ?, ?, "
				+ PLUS_TTL + ", NEXT VALUE FOR %2$s))", table);
	}

	@Override
	String recordWait(String table) {
		return sql("MERGE INTO %1$s_writers (lock_key, owner_token, waits_until) KEY (lock_key, owner_token) "
				+ "VALUES (?, ?, " + PLUS_TTL + ")", table);
	}

	@Override
	List<String> sharedCleanUp(String table) {
		return List.of(sql("""
				DELETE FROM %1$s_holders
				WHERE expires_at < DATEADD(MICROSECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP)
				FETCH FIRST ? ROWS ONLY""", table), sql("""
				DELETE FROM %1$s_writers
				WHERE waits_until < DATEADD(MICROSECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP)
				FETCH FIRST ? ROWS ONLY""", table), sql("""
				DELETE FROM %1$s_keys k WHERE NOT EXISTS (
					SELECT 1 FROM %1$s_holders h WHERE h.lock_key = k.lock_key
					AND h.expires_at > DATEADD(MICROSECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP))
				AND NOT EXISTS (SELECT 1 FROM %1$s_writers w WHERE w.lock_key = k.lock_key)
				FETCH FIRST ? ROWS ONLY""", table));
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
