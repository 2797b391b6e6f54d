package dev.lockstarter.store.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;

import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The results kept in the rows of a {@link JdbcLockStore}'s mutexes, with an expiry of
 * their own: written only by the lock's owner, in auto-commit or in the Spring-managed
 * transaction active on the store's data source.
 */
final class JdbcResults {

	private final JdbcConnections connections;

	JdbcResults(JdbcConnections connections) {
		this.connections = connections;
	}

	/**
	 * Keep a result in the row of a lock that the token holds.
	 * @param key the store key
	 * @param storedKey the key as stored
	 * @param token the owner token
	 * @param result the result
	 * @param ttlMicros how long the result is kept, in microseconds
	 * @param joinTransaction whether to write in the transaction active on the store's
	 * data source, if there is one
	 * @return whether the result was kept
	 */
	boolean put(String key, String storedKey, String token, byte[] result, long ttlMicros, boolean joinTransaction) {
		JdbcConnections.ConnectionCallback<Boolean> update = (connection) -> {
			try (PreparedStatement statement = this.connections.prepare(connection, JdbcDialect::putResult)) {
				statement.setBytes(1, result);
				statement.setLong(2, ttlMicros);
				statement.setString(3, storedKey);
				statement.setString(4, token);
				return this.connections.update(connection, statement) == 1;
			}
		};
		if (joinTransaction && TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.hasResource(this.connections.dataSource())) {
			return this.connections.callInTransaction("store the result of", key, update);
		}
		return this.connections.call("store the result of", key, update);
	}

	@SuppressWarnings("NullAway") // JDK 17's NullAway does not read ConnectionCallback<T
									// extends @Nullable Object>
	byte @Nullable [] get(String key, String storedKey) {
		return this.connections.call("read the result of", key, (connection) -> {
			try (PreparedStatement statement = this.connections.prepare(connection, JdbcDialect::getResult)) {
				statement.setString(1, storedKey);
				try (ResultSet rows = this.connections.query(connection, statement)) {
					return rows.next() ? rows.getBytes(1) : null;
				}
			}
		});
	}

}
