package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

import dev.lockstarter.store.AcquireReply;

/**
 * The shared locks (permits and read/write locks) of a {@link JdbcLockStore}, in two
 * tables beside the mutexes' table {@code T}: {@code T_holders}, a row per place (key,
 * owner token, kind, expiry, fencing token), and {@code T_writers}, a row per waiting
 * writer (key, owner token, end of its wait).
 * <p>
 * An acquisition is one short transaction of its own at READ COMMITTED: it takes the
 * {@linkplain JdbcDialect#lockKey key's lock} (which serializes the acquisitions of a
 * key), reads the key's unexpired places and waits, decides as the contract says, then
 * grants the place with a fencing token from the table's sequence or records the writer's
 * wait, for its {@code waitFor} but no longer than its time-to-live. A single conditional
 * {@code INSERT ... SELECT ... WHERE (SELECT count(*) ...) < n} would not do: two such
 * statements at READ COMMITTED count the same places from their snapshots and both
 * insert. An extension takes the key's lock too, in a short transaction of its own: it
 * keeps a place counted, and an acquisition's read, which locks no row, would otherwise
 * find the place's last committed expiry past while the extension that matched it before
 * then has not committed yet. Release and the time-to-expiry are statements in
 * auto-commit (two for a release): a release only frees a place, so an acquisition that
 * reads before it commits refuses at worst; the statement that deletes the place
 * announces the key where the store has a release channel
 * ({@link JdbcConnections#freeing}). Expiry follows the database's clock; expired rows
 * are left for the {@linkplain JdbcCleanup clean-up}.
 */
final class JdbcSharedLocks {

	private final JdbcConnections connections;

	JdbcSharedLocks(JdbcConnections connections) {
		this.connections = connections;
	}

	/**
	 * Take a place of a kind on a key. Permits are honoured for {@link Kind#PERMIT}, and
	 * a positive wait is recorded for a refused {@link Kind#WRITE}.
	 */
	AcquireReply acquire(String key, String storedKey, String token, long ttlMicros, Kind kind, int permits,
			long waitForMicros) {
		return this.connections.callInOwnTransaction("acquire a " + kind.column + " place of", key, (connection) -> {
			JdbcDialect dialect = this.connections.dialect(connection);
			dialect.lockKey(this.connections, connection, storedKey);
			Places places = places(connection, dialect, storedKey, token);
			long refusal = places.refusal(kind, permits);
			if (refusal >= 0) {
				if (kind == Kind.WRITE && waitForMicros > 0) {
					try (PreparedStatement statement = this.connections.prepare(connection, JdbcDialect::recordWait)) {
						statement.setString(1, storedKey);
						statement.setString(2, token);
						// A writer that stops trying holds readers back for its
						// time-to-live at most; one that keeps trying records it again
						statement.setLong(3, Math.min(waitForMicros, ttlMicros));
						this.connections.update(connection, statement);
					}
				}
				return AcquireReply.held(Duration.ofNanos(refusal * 1000));
			}
			long fence;
			try (PreparedStatement statement = this.connections.prepare(connection, JdbcDialect::grantPlace)) {
				statement.setString(1, storedKey);
				statement.setString(2, token);
				statement.setString(3, kind.column);
				statement.setLong(4, ttlMicros);
				try (ResultSet rows = this.connections.query(connection, statement)) {
					if (!rows.next()) {
						throw new SQLException("No fencing token returned for a granted place");
					}
					fence = rows.getLong(1);
				}
			}
			if (places.ownWait) {
				endWait(connection, dialect, storedKey, token);
			}
			return AcquireReply.acquired(fence);
		});
	}

	boolean release(String key, String storedKey, String token) {
		return this.connections.call("release a place of", key, (connection) -> {
			JdbcDialect dialect = this.connections.dialect(connection);
			endWait(connection, dialect, storedKey, token);
			try (PreparedStatement statement = this.connections.prepare(connection,
					this.connections.freeing(sql("DELETE FROM %1$s_holders WHERE lock_key = ? AND owner_token = ?"
							+ " AND expires_at > " + dialect.now())))) {
				statement.setString(1, storedKey);
				statement.setString(2, token);
				return this.connections.freed(connection, statement) == 1;
			}
		});
	}

	/**
	 * Extend a place, under the key's lock: an extension that matched a place about to
	 * expire, committed while an acquisition counted the key's places, would keep that
	 * place after the acquisition found it expired and granted it again. With the key's
	 * lock, the acquisition counts the places once the extension committed, and an
	 * extension that comes after an acquisition reads the clock after it.
	 */
	boolean extend(String key, String storedKey, String token, long ttlMicros) {
		return this.connections.callInOwnTransactionToRenew("extend a place of", key, (connection) -> {
			JdbcDialect dialect = this.connections.dialect(connection);
			dialect.lockKey(this.connections, connection, storedKey);
			try (PreparedStatement statement = this.connections.prepare(connection,
					sql("UPDATE %1$s_holders SET expires_at = " + dialect.plusTtl()
							+ " WHERE lock_key = ? AND owner_token = ? AND expires_at > " + dialect.now()))) {
				statement.setLong(1, ttlMicros);
				statement.setString(2, storedKey);
				statement.setString(3, token);
				return this.connections.update(connection, statement) == 1;
			}
		});
	}

	Duration timeToExpiry(String key, String storedKey) {
		return this.connections.call("read the time to expiry of the places of", key, (connection) -> {
			JdbcDialect dialect = this.connections.dialect(connection);
			try (PreparedStatement statement = this.connections.prepare(connection,
					sql("SELECT MAX(" + dialect.remainingMicros()
							+ ") FROM %1$s_holders WHERE lock_key = ? AND expires_at > " + dialect.now()))) {
				statement.setString(1, storedKey);
				try (ResultSet rows = this.connections.query(connection, statement)) {
					long remaining = rows.next() ? rows.getLong(1) : 0;
					return (remaining > 0) ? Duration.ofNanos(remaining * 1000) : Duration.ZERO;
				}
			}
		});
	}

	private Places places(Connection connection, JdbcDialect dialect, String storedKey, String token)
			throws SQLException {
		String query = "SELECT kind, " + dialect.remainingMicros() + ", owner_token FROM %1$s_holders"
				+ " WHERE lock_key = ? AND expires_at > " + dialect.now()
				+ " UNION ALL SELECT 'wait', 0, owner_token FROM %1$s_writers WHERE lock_key = ? AND waits_until > "
				+ dialect.now();
		Places places = new Places();
		try (PreparedStatement statement = this.connections.prepare(connection, sql(query))) {
			statement.setString(1, storedKey);
			statement.setString(2, storedKey);
			try (ResultSet rows = this.connections.query(connection, statement)) {
				while (rows.next()) {
					places.add(rows.getString(1), Math.max(0, rows.getLong(2)), token.equals(rows.getString(3)));
				}
			}
		}
		return places;
	}

	private void endWait(Connection connection, JdbcDialect dialect, String storedKey, String token)
			throws SQLException {
		try (PreparedStatement statement = this.connections.prepare(connection,
				sql("DELETE FROM %1$s_writers WHERE lock_key = ? AND owner_token = ?"))) {
			statement.setString(1, storedKey);
			statement.setString(2, token);
			this.connections.update(connection, statement);
		}
	}

	private String sql(String template) {
		return JdbcDialect.sql(template, this.connections.tableName());
	}

	/** The kind of a place, as its {@code kind} column holds it. */
	enum Kind {

		PERMIT("permit"), READ("read"), WRITE("write");

		final String column;

		Kind(String column) {
			this.column = column;
		}

	}

	/** A key's unexpired places and waits, as one acquisition read them. */
	private static final class Places {

		private int count;

		private long earliest = Long.MAX_VALUE;

		private long latest;

		private long writer = -1;

		private boolean writerWaits;

		private boolean ownWait;

		void add(String kind, long remaining, boolean own) {
			if ("wait".equals(kind)) {
				this.writerWaits = true;
				this.ownWait |= own;
				return;
			}
			this.count++;
			this.earliest = Math.min(this.earliest, remaining);
			this.latest = Math.max(this.latest, remaining);
			if (Kind.WRITE.column.equals(kind)) {
				this.writer = remaining;
			}
		}

		/** The remaining µs to report if refused, or -1 if granted. */
		long refusal(Kind kind, int permits) {
			return switch (kind) {
				case PERMIT -> (this.count < permits) ? -1 : this.earliest;
				case READ -> (this.writer >= 0) ? this.writer : (this.writerWaits ? this.latest : -1);
				case WRITE -> (this.count == 0) ? -1 : this.latest;
			};
		}

	}

}
