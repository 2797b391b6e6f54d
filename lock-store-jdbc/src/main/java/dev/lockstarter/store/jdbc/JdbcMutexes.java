package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.lockstarter.store.AcquireReply;

/**
 * The mutexes of a {@link JdbcLockStore}: a row per key of its table (stored key, owner
 * token, expiry, fencing token), each operation one statement of the {@link JdbcDialect},
 * in auto-commit, on the database's clock. An acquisition whose row changed under it is
 * tried again, up to {@value #ACQUIRE_ATTEMPTS} times. A release announces the key where
 * the store has a release channel ({@link JdbcConnections#freeing}). Extensions are
 * renewals: their connections are asked for on threads that acquisitions do not wait on
 * ({@link JdbcConnections#callToRenew}).
 */
final class JdbcMutexes {

	private static final int ACQUIRE_ATTEMPTS = 3;

	private final JdbcConnections connections;

	JdbcMutexes(JdbcConnections connections) {
		this.connections = connections;
	}

	AcquireReply acquire(String key, String storedKey, String token, long ttlMicros) {
		return this.connections.call("acquire", key, (connection) -> {
			JdbcDialect dialect = this.connections.dialect(connection);
			for (int attempt = 1;; attempt++) {
				AcquireReply result = dialect.tryAcquire(this.connections, connection, storedKey, token, ttlMicros);
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

	boolean release(String key, String storedKey, String token) {
		return this.connections.call("release", key, (connection) -> {
			String release = this.connections
				.freeing(this.connections.dialect(connection).release(this.connections.tableName()));
			try (PreparedStatement statement = this.connections.prepare(connection, release)) {
				statement.setString(1, storedKey);
				statement.setString(2, token);
				return this.connections.freed(connection, statement) == 1;
			}
		});
	}

	boolean extend(String key, String storedKey, String token, long ttlMicros) {
		return this.connections.callToRenew("extend", key, (connection) -> {
			try (PreparedStatement statement = this.connections.prepare(connection, JdbcDialect::extend)) {
				statement.setLong(1, ttlMicros);
				statement.setString(2, storedKey);
				statement.setString(3, token);
				return this.connections.update(connection, statement) == 1;
			}
		});
	}

	/**
	 * Extend several locks in one round trip: one statement over arrays of keys and
	 * tokens where the dialect has one (PostgreSQL, whose statements in auto-commit carry
	 * their server-side bound, which a batch cannot), a batch of statements otherwise.
	 * @param keys the store keys, not empty
	 * @param tokens the token of each key
	 * @param ttlMicros the new time-to-live, in microseconds
	 * @return whether each lock was extended
	 */
	boolean[] extendAll(List<String> keys, List<String> tokens, long ttlMicros) {
		return this.connections.callToRenew("extend",
				keys.get(0) + ((keys.size() > 1) ? " and " + (keys.size() - 1) + " more" : ""), (connection) -> {
					String extendAll = this.connections.dialect(connection).extendAll(this.connections.tableName());
					return (extendAll != null) ? extendAll(connection, extendAll, keys, tokens, ttlMicros)
							: extendInBatch(connection, keys, tokens, ttlMicros);
				});
	}

	private boolean[] extendAll(Connection connection, String extendAll, List<String> keys, List<String> tokens,
			long ttlMicros) throws SQLException {
		String[] storedKeys = keys.stream().map(JdbcLockStore::storedKey).toArray(String[]::new);
		try (PreparedStatement statement = this.connections.prepare(connection, extendAll)) {
			statement.setLong(1, ttlMicros);
			statement.setArray(2, connection.createArrayOf("varchar", storedKeys));
			statement.setArray(3, connection.createArrayOf("varchar", tokens.toArray(String[]::new)));
			Set<List<String>> extended = new HashSet<>();
			try (ResultSet rows = this.connections.query(connection, statement)) {
				while (rows.next()) {
					extended.add(List.of(rows.getString(1), rows.getString(2)));
				}
			}
			boolean[] result = new boolean[keys.size()];
			for (int i = 0; i < result.length; i++) {
				result[i] = extended.contains(List.of(storedKeys[i], tokens.get(i)));
			}
			return result;
		}
	}

	private boolean[] extendInBatch(Connection connection, List<String> keys, List<String> tokens, long ttlMicros)
			throws SQLException {
		try (PreparedStatement statement = this.connections.prepare(connection, JdbcDialect::extend)) {
			for (int i = 0; i < keys.size(); i++) {
				statement.setLong(1, ttlMicros);
				statement.setString(2, JdbcLockStore.storedKey(keys.get(i)));
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
	}

	Duration timeToExpiry(String key, String storedKey) {
		return this.connections.call("read the time to expiry of", key, (connection) -> {
			try (PreparedStatement statement = this.connections.prepare(connection, JdbcDialect::timeToExpiry)) {
				statement.setString(1, storedKey);
				try (ResultSet rows = this.connections.query(connection, statement)) {
					long remaining = rows.next() ? rows.getLong(1) : 0;
					return (remaining > 0) ? Duration.ofNanos(remaining * 1000) : Duration.ZERO;
				}
			}
		});
	}

}
