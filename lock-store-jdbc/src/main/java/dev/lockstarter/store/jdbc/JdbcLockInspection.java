package dev.lockstarter.store.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.LogSafe;
import dev.lockstarter.store.StoredLock;
import org.springframework.util.Assert;

/**
 * The operator's view of the mutexes of a {@link JdbcLockStore}
 * ({@link InspectableLockStore}): the held rows of the lock table whose key starts with a
 * prefix, and the release of a row whoever holds it. Only the lock table is read and
 * written: the places and waits of shared locks live in tables of their own, and the
 * result kept in a lock's row is left as it is.
 * <p>
 * The listing is one {@code SELECT} in auto-commit that reads the primary key's index
 * from the prefix to the {@linkplain JdbcDialect#prefixEnd end of its range}, in key
 * order, skipping rows that are free or expired on the database's clock (released rows
 * stay until the {@linkplain JdbcCleanup clean-up}), until it has {@code limit} rows. It
 * locks no row: it never makes a lock operation wait. A force-release is one
 * {@code UPDATE} that frees the row as a release does, on the condition that it is held,
 * whatever its owner, and announces the key as a release does.
 */
final class JdbcLockInspection {

	private final JdbcConnections connections;

	JdbcLockInspection(JdbcConnections connections) {
		this.connections = connections;
	}

	List<StoredLock> holders(String keyPrefix, int limit) {
		Assert.notNull(keyPrefix, "'keyPrefix' must not be null");
		Assert.isTrue(limit > 0, () -> "'limit' must be positive, was " + limit);
		if (!storable(keyPrefix)) {
			// Keys with a NUL or an unpaired surrogate are stored hashed
			return List.of();
		}
		return this.connections.call("list the held locks under the prefix '" + LogSafe.key(keyPrefix) + "'", "",
				(connection) -> {
					JdbcDialect dialect = this.connections.dialect(connection);
					String end = dialect.prefixEnd(keyPrefix);
					try (PreparedStatement statement = this.connections.prepare(connection,
							holdersQuery(dialect, this.connections.tableName(), end != null))) {
						int parameter = 1;
						statement.setString(parameter++, keyPrefix);
						if (end != null) {
							statement.setString(parameter++, end);
						}
						statement.setInt(parameter, limit);
						List<StoredLock> holders = new ArrayList<>();
						try (ResultSet rows = this.connections.query(connection, statement)) {
							while (rows.next()) {
								// The clock read for the time left may be a little later
								// than
								// the one of the condition
								Duration timeToExpiry = Duration.ofNanos(Math.max(0, rows.getLong(3)) * 1000);
								holders.add(new StoredLock(rows.getString(1), rows.getString(2), timeToExpiry,
										rows.getLong(4)));
							}
						}
						return holders;
					}
				});
	}

	/**
	 * Parameters: the prefix, the end of its range if {@code bounded}, the limit. Four
	 * columns: the key, the owner token, the remaining time-to-live in µs, the fencing
	 * token.
	 */
	static String holdersQuery(JdbcDialect dialect, String table, boolean bounded) {
		return JdbcDialect.sql("SELECT lock_key, owner_token, " + dialect.remainingMicros() + ", fence FROM %1$s"
				+ " WHERE lock_key >= ?" + (bounded ? " AND lock_key < ?" : "")
				+ " AND owner_token IS NOT NULL AND expires_at > " + dialect.now() + " ORDER BY lock_key LIMIT ?",
				table);
	}

	boolean forceRelease(String key, String storedKey) {
		return this.connections.call("force-release", key, (connection) -> {
			JdbcDialect dialect = this.connections.dialect(connection);
			try (PreparedStatement statement = this.connections.prepare(connection,
					this.connections.freeing(sql("UPDATE %1$s SET owner_token = NULL, expires_at = " + dialect.now()
							+ " WHERE lock_key = ? AND owner_token IS NOT NULL AND expires_at > " + dialect.now())))) {
				statement.setString(1, storedKey);
				return this.connections.freed(connection, statement) == 1;
			}
		});
	}

	/**
	 * Whether a key stored as it is may start with the prefix: stored keys hold neither a
	 * NUL character nor an unpaired surrogate.
	 */
	private static boolean storable(String prefix) {
		return prefix.codePoints()
			.noneMatch((c) -> c == 0 || (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE));
	}

	private String sql(String template) {
		return JdbcDialect.sql(template, this.connections.tableName());
	}

}
