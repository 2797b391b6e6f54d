package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;

/**
 * The SQL of the {@link JdbcLockStore} on MariaDB (10.5 or later): an acquisition is one
 * {@code INSERT ... ON DUPLICATE KEY UPDATE ... RETURNING} that takes the row only if it
 * is free or expired and returns the row's fencing token, whether it is the token this
 * statement drew, and the holder's remaining time-to-live; expiry follows
 * {@code UTC_TIMESTAMP(6)}, the time the statement started. Statements get a query
 * timeout, which MariaDB's driver enforces on the server. Keys and tokens are compared
 * byte for byte ({@code utf8mb4_nopad_bin}: trailing spaces count). The operations of a
 * shared lock's key are serialized by the row lock on the key's row of a table of keys,
 * inserted or locked by one {@code INSERT ... ON DUPLICATE KEY UPDATE}.
 */
final class MariaDbDialect extends JdbcDialect {

	private static final String NOW = "UTC_TIMESTAMP(6)";

	private static final String PLUS_TTL = "UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND";

	private static final String REMAINING_MICROS = "TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at)";

	private static final String TEXT = "CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin";

	/**
	 * MariaDB assigns the columns of {@code ON DUPLICATE KEY UPDATE} from left to right,
	 * each seeing the ones assigned before it: the fence decides on the old row and, when
	 * the row is taken, draws its token from the sequence there, once the statement holds
	 * the row's lock (a token drawn in {@code VALUES}, before the lock, could be lower
	 * than the one of an owner that took the row meanwhile). The other columns follow the
	 * fence: it equals {@code LASTVAL}, this session's last draw, only when it was just
	 * drawn, as the value drawn in {@code VALUES} (for a new row) is stored nowhere else.
	 */
	private static final String ACQUIRE = """
			INSERT INTO %1$s (lock_key, owner_token, expires_at, fence)
			VALUES (?, ?, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, NEXTVAL(%2$s))
			ON DUPLICATE KEY UPDATE
				fence = IF(owner_token IS NULL OR expires_at <= UTC_TIMESTAMP(6), NEXTVAL(%2$s), fence),
				owner_token = IF(fence = LASTVAL(%2$s), VALUE(owner_token), owner_token),
				expires_at = IF(fence = LASTVAL(%2$s), VALUE(expires_at), expires_at)
			RETURNING fence, fence = LASTVAL(%2$s),
				TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at)""";

	private static final String LOCK_KEY = "INSERT INTO %1$s_keys (lock_key) VALUES (?) "
			+ "ON DUPLICATE KEY UPDATE lock_key = lock_key";

	/** MariaDB's error of a deadlock, whose transaction was rolled back. */
	private static final int DEADLOCK = 1213;

	private static final int LOCK_KEY_ATTEMPTS = 3;

	MariaDbDialect() {
		super(NOW, PLUS_TTL, REMAINING_MICROS);
	}

	/**
	 * MariaDB's driver (Connector/J 3) enforces a query timeout on the server, by running
	 * the statement as {@code SET STATEMENT max_statement_time=n FOR ...}: it never opens
	 * another connection to cancel it, so a server that does not answer cannot make it
	 * wait. The server ends a statement waiting for a row lock at the timeout (in whole
	 * seconds, rounded up) and the connection stays usable, and it also ends a statement
	 * whose client gave up on it, which would otherwise wait for the row lock up to
	 * {@code innodb_lock_wait_timeout} (50 s). The connection's network timeout still
	 * bounds every call when the server does not answer at all. (On a MySQL server the
	 * driver ignores the query timeout, but MySQL is not supported.)
	 */
	@Override
	boolean usesQueryTimeout() {
		return true;
	}

	@Override
	List<String> schema(String table) {
		return List.of(sql("CREATE SEQUENCE IF NOT EXISTS %2$s", table), sql("""
				CREATE TABLE IF NOT EXISTS %1$s (
					lock_key VARCHAR(255) TEXT NOT NULL PRIMARY KEY,
					owner_token VARCHAR(255) TEXT,
					expires_at DATETIME(6) NOT NULL,
					fence BIGINT NOT NULL,
					result_data LONGBLOB,
					result_expires_at DATETIME(6),
					INDEX %3$s_expires_at_idx (expires_at)
				) ENGINE=InnoDB""".replace("TEXT", TEXT).replace("%3$s", unqualified(table)), table),
				sharedTable(table, "holders", """
						kind VARCHAR(6) NOT NULL,
						expires_at DATETIME(6) NOT NULL,
						fence BIGINT NOT NULL,""", "expires_at"),
				sharedTable(table, "writers", "waits_until DATETIME(6) NOT NULL,", "waits_until"), keysTable(table));
	}

	@Override
	List<String> sharedSchema(String table) {
		List<String> schema = schema(table);
		return schema.subList(2, schema.size());
	}

	private static String sharedTable(String table, String suffix, String columns, String indexed) {
		return sql("CREATE TABLE IF NOT EXISTS %1$s_" + suffix + " (\n\tlock_key VARCHAR(255) " + TEXT
				+ " NOT NULL,\n\towner_token VARCHAR(255) " + TEXT + " NOT NULL,\n\t"
				+ columns.strip().replace("\n", "\n\t") + "\n\tPRIMARY KEY (lock_key, owner_token),\n\tINDEX "
				+ unqualified(table) + "_" + suffix + "_idx (" + indexed + ")\n) ENGINE=InnoDB", table);
	}

	private static String keysTable(String table) {
		return sql("CREATE TABLE IF NOT EXISTS %1$s_keys (\n\tlock_key VARCHAR(255) " + TEXT
				+ " NOT NULL PRIMARY KEY\n) ENGINE=InnoDB", table);
	}

	/**
	 * Insert the key's row or, when it is there, lock it, in one statement that holds the
	 * row's exclusive lock until the transaction ends. A deadlock between creators of the
	 * same new row rolls the transaction back, which has done nothing else yet: it is
	 * tried again.
	 */
	@Override
	void lockKey(JdbcConnections connections, Connection connection, String key) throws SQLException {
		for (int attempt = 1;; attempt++) {
			try (PreparedStatement statement = connections.prepare(connection,
					sql(LOCK_KEY, connections.tableName()))) {
				statement.setString(1, key);
				statement.executeUpdate();
				return;
			}
			catch (SQLException ex) {
				if (ex.getErrorCode() != DEADLOCK || attempt == LOCK_KEY_ATTEMPTS) {
					throw ex;
				}
			}
		}
	}

	@Override
	boolean setsIsolation() {
		return false;
	}

	@Override
	String grantPlace(String table) {
		return sql("""
				INSERT INTO %1$s_holders (lock_key, owner_token, kind, expires_at, fence)
				VALUES (?, ?, ?, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, NEXTVAL(%2$s))
				ON DUPLICATE KEY UPDATE kind = VALUE(kind), expires_at = VALUE(expires_at), fence = VALUE(fence)
				RETURNING fence""", table);
	}

	@Override
	String recordWait(String table) {
		return sql("""
				INSERT INTO %1$s_writers (lock_key, owner_token, waits_until)
				VALUES (?, ?, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND)
				ON DUPLICATE KEY UPDATE waits_until = VALUE(waits_until)""", table);
	}

	@Override
	List<String> sharedCleanUp(String table) {
		return List.of(sql("""
				DELETE FROM %1$s_holders
				WHERE expires_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
				LIMIT ?""", table), sql("""
				DELETE FROM %1$s_writers
				WHERE waits_until < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
				LIMIT ?""", table), sql("""
				DELETE FROM %1$s_keys WHERE NOT EXISTS (
					SELECT 1 FROM %1$s_holders h WHERE h.lock_key = %1$s_keys.lock_key
					AND h.expires_at > UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)
				AND NOT EXISTS (SELECT 1 FROM %1$s_writers w WHERE w.lock_key = %1$s_keys.lock_key)
				LIMIT ?""", table));
	}

	@Override
	@Nullable AcquireReply tryAcquire(JdbcConnections connections, Connection connection, String key, String token,
			long ttlMicros) throws SQLException {
		try (PreparedStatement statement = connections.prepare(connection, sql(ACQUIRE, connections.tableName()))) {
			statement.setString(1, key);
			statement.setString(2, token);
			statement.setLong(3, ttlMicros);
			try (ResultSet rows = statement.executeQuery()) {
				if (!rows.next()) {
					return null;
				}
				if (rows.getBoolean(2)) {
					return AcquireReply.acquired(rows.getLong(1));
				}
				long remaining = rows.getLong(3);
				return (remaining > 0) ? AcquireReply.held(Duration.ofNanos(remaining * 1000)) : null;
			}
		}
		catch (SQLException ex) {
			// Concurrent first insertions of a key may deadlock: the statement was rolled
			// back, so it is tried again
			if (ex.getErrorCode() == DEADLOCK) {
				return null;
			}
			throw ex;
		}
	}

	/**
	 * MariaDB takes no {@code LIMIT} in an {@code IN} subquery, nor the table being
	 * deleted from in a subquery: the batch is chosen in a derived table, which MariaDB
	 * materializes first, and each row is checked again when it is deleted.
	 */
	@Override
	String cleanUp(String table) {
		return sql("""
				DELETE FROM %1$s WHERE lock_key IN (
					SELECT lock_key FROM (
						SELECT lock_key FROM %1$s
						WHERE expires_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
						AND (result_expires_at IS NULL
							OR result_expires_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)
						LIMIT ?) batch)
				AND expires_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND""", table);
	}

}
