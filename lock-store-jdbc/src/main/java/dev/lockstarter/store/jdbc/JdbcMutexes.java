package dev.lockstarter.store.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;

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
				return JdbcConnections.freed(statement) == 1;
			}
		});
	}

	boolean extend(String key, String storedKey, String token, long ttlMicros) {
		return this.connections.callToRenew("extend", key, (connection) -> {
			try (PreparedStatement statement = this.connections.prepare(connection, JdbcDialect::extend)) {
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
	 * @param keys the store keys, not empty
	 * @param tokens the token of each key
	 * @param ttlMicros the new time-to-live, in microseconds
	 * @return whether each lock was extended
	 */
	boolean[] extendAll(List<String> keys, List<String> tokens, long ttlMicros) {
		return this.connections.callToRenew("extend",
				keys.get(0) + ((keys.size() > 1) ? " and " + (keys.size() - 1) + " more" : ""), (connection) -> {
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
				});
	}

	Duration timeToExpiry(String key, String storedKey) {
		return this.connections.call("read the time to expiry of", key, (connection) -> {
			try (PreparedStatement statement = this.connections.prepare(connection, JdbcDialect::timeToExpiry)) {
				statement.setString(1, storedKey);
				try (ResultSet rows = statement.executeQuery()) {
					long remaining = rows.next() ? rows.getLong(1) : 0;
					return (remaining > 0) ? Duration.ofNanos(remaining * 1000) : Duration.ZERO;
				}
			}
		});
	}

}
