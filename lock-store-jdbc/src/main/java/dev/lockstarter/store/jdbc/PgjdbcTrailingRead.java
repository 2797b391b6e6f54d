package dev.lockstarter.store.jdbc;

import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.SQLException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.QueryExecutor;
import org.postgresql.core.QueryExecutorBase;

/**
 * Turns off, on the listening connection only, the read with which pgjdbc ends every
 * {@code getNotifications} call that received something: a read of the socket with a 1 ms
 * timeout, to find messages that {@code available()} does not count on an SSL socket
 * ({@code PGStream.hasMessagePending}). On a quiet connection that read always waits its
 * whole millisecond, so every announcement reached the listeners about 1.1 ms after it
 * arrived. The driver skips the read until its {@code nextStreamAvailableCheckTime}; set
 * to the end of time, only the messages already received are read, and the next wait (the
 * listener calls {@code getNotifications} again at once) receives the rest.
 * <p>
 * pgjdbc has no setting for it, so the field is set by reflection. If the driver's
 * classes differ from the ones this was written for, nothing is changed: the
 * announcements come, a millisecond later, and the change is logged once at debug.
 */
final class PgjdbcTrailingRead {

	private static final Log logger = LogFactory.getLog(PgjdbcTrailingRead.class);

	private static final @Nullable Fields FIELDS = Fields.find();

	private PgjdbcTrailingRead() {
	}

	/**
	 * Skip the trailing read on this connection until {@link #restore}.
	 * @param connection a connection of pgjdbc, possibly wrapped by a pool
	 * @return whether the read is skipped now
	 */
	static boolean skip(Connection connection) {
		return set(connection, Long.MAX_VALUE);
	}

	/**
	 * Give the connection the driver's own behaviour back, before it returns to its pool.
	 * @param connection the connection
	 */
	static void restore(Connection connection) {
		set(connection, 0);
	}

	/**
	 * Whether the trailing read is skipped on this connection.
	 * @param connection the connection
	 * @return whether it is
	 */
	static boolean isSkipped(Connection connection) {
		Object stream = stream(connection);
		try {
			return stream != null && FIELDS != null && FIELDS.nextCheck.getLong(stream) == Long.MAX_VALUE;
		}
		catch (IllegalAccessException ex) {
			return false;
		}
	}

	private static boolean set(Connection connection, long nextCheck) {
		Object stream = stream(connection);
		if (stream == null || FIELDS == null) {
			return false;
		}
		try {
			FIELDS.nextCheck.setLong(stream, nextCheck);
			return true;
		}
		catch (IllegalAccessException | RuntimeException ex) {
			logger.debug("Could not change pgjdbc's trailing read on the listening connection", ex);
			return false;
		}
	}

	private static @Nullable Object stream(Connection connection) {
		if (FIELDS == null) {
			return null;
		}
		try {
			QueryExecutor executor = connection.unwrap(BaseConnection.class).getQueryExecutor();
			return (executor instanceof QueryExecutorBase) ? FIELDS.stream.get(executor) : null;
		}
		catch (SQLException | IllegalAccessException | RuntimeException ex) {
			logger.debug("Could not reach pgjdbc's stream on the listening connection", ex);
			return null;
		}
	}

	/** The two fields, found once. */
	private record Fields(Field stream, Field nextCheck) {

		static @Nullable Fields find() {
			try {
				Field stream = QueryExecutorBase.class.getDeclaredField("pgStream");
				Field nextCheck = stream.getType().getDeclaredField("nextStreamAvailableCheckTime");
				if (nextCheck.getType() != long.class) {
					throw new NoSuchFieldException("nextStreamAvailableCheckTime is not a long");
				}
				stream.setAccessible(true);
				nextCheck.setAccessible(true);
				return new Fields(stream, nextCheck);
			}
			catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
				logger.debug("pgjdbc's trailing read after notifications stays on (about 1 ms per announcement): "
						+ "this driver's classes differ", ex);
				return null;
			}
		}

	}

}
