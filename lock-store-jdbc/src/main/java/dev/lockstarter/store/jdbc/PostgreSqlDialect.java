package dev.lockstarter.store.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;

/**
 * The SQL of the {@link JdbcLockStore} on PostgreSQL: an acquisition is one
 * {@code INSERT ... ON CONFLICT DO UPDATE} that returns the new fencing token or, when
 * the row is held, the holder's remaining time-to-live; expiry follows
 * {@code clock_timestamp()}. Statements get no query timeout: in auto-commit, each is
 * preceded by its {@code statement_timeout} ({@link JdbcConnections#prepare}), and in a
 * transaction of the store's, {@link #lockKey} sets it. The operations of a shared lock's
 * key are serialized by a transaction-scoped advisory lock, in the two-integer space (the
 * table's and the key's {@code hashtext}), which never meets an application's
 * single-{@code bigint} advisory locks. A {@link PostgreSqlJdbcLockStore} announces
 * releases on the table's {@linkplain #releaseChannel channel}.
 */
final class PostgreSqlDialect extends JdbcDialect {

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

	/**
	 * One round trip: READ COMMITTED for the transaction (whatever the pool's default), a
	 * server-side bound on each statement of the transaction, on the wait for the key's
	 * lock and on a stalled client holding it, then the lock.
	 */
	private static final String LOCK_KEY = """
			SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
			SELECT set_config('statement_timeout', ?, true), set_config('lock_timeout', ?, true),
				set_config('idle_in_transaction_session_timeout', ?, true);
			SELECT pg_advisory_xact_lock(hashtext(?), hashtext(?))""";

	/**
	 * The extension of several locks as one statement, which, unlike a batch, can carry
	 * its server-side bound. The key column's collation compares the keys.
	 */
	private static final String EXTEND_ALL = """
			UPDATE %1$s AS l SET expires_at = clock_timestamp() + ? * INTERVAL '1 microsecond'
			FROM unnest(CAST(? AS VARCHAR[]), CAST(? AS VARCHAR[])) AS e (lock_key, owner_token)
			WHERE l.lock_key = e.lock_key COLLATE "C" AND l.owner_token = e.owner_token
				AND l.expires_at > clock_timestamp()
			RETURNING l.lock_key, l.owner_token""";

	/** PostgreSQL's longest identifier, a channel name included, in bytes. */
	private static final int MAX_IDENTIFIER = 63;

	PostgreSqlDialect() {
		super(NOW, PLUS_TTL, REMAINING_MICROS);
	}

	/**
	 * Return the channel on which the releases of a table's keys are announced: the
	 * table's name in lower case (as PostgreSQL folds an unquoted name, so every spelling
	 * of one table gives one channel) followed by {@code _released}. A name longer than
	 * PostgreSQL's 63 bytes (a long schema) is cut to 46 characters followed by {@code _}
	 * and 16 hex digits of its SHA-256. The name holds only {@code [a-z0-9_.]} (table
	 * names match {@link JdbcLockStore#TABLE_NAME_PATTERN}), so it is safe in a string
	 * literal and, double-quoted, in {@code LISTEN}.
	 * @param table the table name, optionally qualified by its schema
	 * @return the channel
	 */
	static String releaseChannel(String table) {
		String channel = table.toLowerCase(Locale.ROOT) + "_released";
		if (channel.length() <= MAX_IDENTIFIER) {
			return channel;
		}
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(channel.getBytes(StandardCharsets.US_ASCII));
			return channel.substring(0, MAX_IDENTIFIER - 17) + "_" + HexFormat.of().formatHex(digest, 0, 8);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

	@Override
	boolean usesQueryTimeout() {
		return false;
	}

	@Override
	List<String> schema(String table) {
		List<String> schema = new ArrayList<>();
		schema.add(sql("CREATE SEQUENCE IF NOT EXISTS %2$s", table));
		schema.add(sql("""
				CREATE TABLE IF NOT EXISTS %1$s (
					lock_key VARCHAR(255) COLLATE "C" NOT NULL PRIMARY KEY,
					owner_token VARCHAR(255),
					expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
					fence BIGINT NOT NULL,
					result_data BYTEA,
					result_expires_at TIMESTAMP WITH TIME ZONE
				)""", table));
		schema
			.add("CREATE INDEX IF NOT EXISTS " + unqualified(table) + "_expires_at_idx ON " + table + " (expires_at)");
		schema.addAll(sharedSchema(table));
		return schema;
	}

	@Override
	List<String> sharedSchema(String table) {
		return List.of(sql("""
				CREATE TABLE IF NOT EXISTS %1$s_holders (
					lock_key VARCHAR(255) COLLATE "C" NOT NULL,
					owner_token VARCHAR(255) NOT NULL,
					kind VARCHAR(6) NOT NULL,
					expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
					fence BIGINT NOT NULL,
					PRIMARY KEY (lock_key, owner_token)
				)""", table),
				"CREATE INDEX IF NOT EXISTS " + unqualified(table) + "_holders_idx ON " + table
						+ "_holders (expires_at)",
				sql("""
						CREATE TABLE IF NOT EXISTS %1$s_writers (
							lock_key VARCHAR(255) COLLATE "C" NOT NULL,
							owner_token VARCHAR(255) NOT NULL,
							waits_until TIMESTAMP WITH TIME ZONE NOT NULL,
							PRIMARY KEY (lock_key, owner_token)
						)""", table), "CREATE INDEX IF NOT EXISTS " + unqualified(table) + "_writers_idx ON " + table
						+ "_writers (waits_until)");
	}

	@Override
	void lockKey(JdbcConnections connections, Connection connection, String key) throws SQLException {
		String timeoutMillis = Long.toString(connections.timeout().toMillis());
		try (PreparedStatement statement = connections.prepare(connection, LOCK_KEY)) {
			statement.setString(1, timeoutMillis);
			statement.setString(2, timeoutMillis);
			statement.setString(3, timeoutMillis);
			statement.setString(4, connections.tableName());
			statement.setString(5, key);
			statement.execute();
		}
	}

	@Override
	String extendAll(String table) {
		return sql(EXTEND_ALL, table);
	}

	@Override
	boolean setsIsolation() {
		return true;
	}

	@Override
	String grantPlace(String table) {
		return sql("""
				INSERT INTO %1$s_holders AS h (lock_key, owner_token, kind, expires_at, fence)
				VALUES (?, ?, ?, clock_timestamp() + ? * INTERVAL '1 microsecond', nextval('%2$s'))
				ON CONFLICT (lock_key, owner_token) DO UPDATE
				SET kind = EXCLUDED.kind, expires_at = EXCLUDED.expires_at, fence = EXCLUDED.fence
				RETURNING h.fence""", table);
	}

	@Override
	String recordWait(String table) {
		return sql("""
				INSERT INTO %1$s_writers (lock_key, owner_token, waits_until)
				VALUES (?, ?, clock_timestamp() + ? * INTERVAL '1 microsecond')
				ON CONFLICT (lock_key, owner_token) DO UPDATE SET waits_until = EXCLUDED.waits_until""", table);
	}

	@Override
	List<String> sharedCleanUp(String table) {
		return List.of(sql("""
				DELETE FROM %1$s_holders WHERE (lock_key, owner_token) IN (
					SELECT lock_key, owner_token FROM %1$s_holders
					WHERE expires_at < clock_timestamp() - ? * INTERVAL '1 microsecond'
					LIMIT ? FOR UPDATE SKIP LOCKED)""", table), sql("""
				DELETE FROM %1$s_writers WHERE (lock_key, owner_token) IN (
					SELECT lock_key, owner_token FROM %1$s_writers
					WHERE waits_until < clock_timestamp() - ? * INTERVAL '1 microsecond'
					LIMIT ? FOR UPDATE SKIP LOCKED)""", table));
	}

	@Override
	@Nullable AcquireReply tryAcquire(JdbcConnections connections, Connection connection, String key, String token,
			long ttlMicros) throws SQLException {
		try (PreparedStatement statement = connections.prepare(connection, sql(ACQUIRE, connections.tableName()))) {
			statement.setString(1, key);
			statement.setString(2, token);
			statement.setLong(3, ttlMicros);
			statement.setString(4, key);
			try (ResultSet rows = connections.query(connection, statement)) {
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
