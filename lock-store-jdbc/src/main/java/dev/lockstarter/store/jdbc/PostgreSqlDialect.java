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
 * The SQL of the {@link JdbcLockStore} on PostgreSQL: an acquisition is one
 * {@code INSERT ... ON CONFLICT DO UPDATE} that returns the new fencing token or, when
 * the row is held, the holder's remaining time-to-live; expiry follows
 * {@code clock_timestamp()}. Statements get no query timeout.
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

	PostgreSqlDialect() {
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
				)""", table),
				"CREATE INDEX IF NOT EXISTS " + unqualified(table) + "_expires_at_idx ON " + table + " (expires_at)");
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
