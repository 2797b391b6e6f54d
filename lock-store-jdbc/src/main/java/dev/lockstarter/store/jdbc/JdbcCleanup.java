package dev.lockstarter.store.jdbc;

import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Deletes the rows of a {@link JdbcLockStore} whose lock and result expired a while ago,
 * in short batches, when asked or every interval on a daemon thread of its own.
 */
final class JdbcCleanup {

	/** How long after a row's lock and result expired the clean-up may delete it. */
	static final Duration DELAY = Duration.ofMinutes(1);

	/** The most rows one clean-up statement deletes. */
	static final int BATCH_SIZE = 100;

	/** The most clean-up statements of one clean-up run. */
	static final int MAX_BATCHES = 50;

	private static final Log logger = LogFactory.getLog(JdbcCleanup.class);

	private final JdbcConnections connections;

	private @Nullable ScheduledExecutorService executor;

	JdbcCleanup(JdbcConnections connections) {
		this.connections = connections;
	}

	/**
	 * Delete expired rows, batch after batch, of the lock table, then of each table of
	 * shared locks; the number of rows deleted.
	 */
	int cleanUp() {
		int deleted = cleanUpLocks();
		List<String> statements = this.connections.call("clean up expired shared locks of", "",
				(connection) -> this.connections.dialect(connection).sharedCleanUp(this.connections.tableName()));
		for (String sql : statements) {
			for (int batch = 0; batch < MAX_BATCHES; batch++) {
				int rows = this.connections.call("clean up expired shared locks of", "", (connection) -> {
					try (PreparedStatement statement = this.connections.prepare(connection, sql)) {
						statement.setLong(1, DELAY.toNanos() / 1000);
						statement.setInt(2, BATCH_SIZE);
						return this.connections.update(connection, statement);
					}
				});
				deleted += rows;
				if (rows < BATCH_SIZE) {
					break;
				}
			}
		}
		return deleted;
	}

	private int cleanUpLocks() {
		int deleted = 0;
		for (int batch = 0; batch < MAX_BATCHES; batch++) {
			int rows = this.connections.call("clean up expired rows of", "", (connection) -> {
				try (PreparedStatement statement = this.connections.prepare(connection, JdbcDialect::cleanUp)) {
					long delay = DELAY.toNanos() / 1000;
					statement.setLong(1, delay);
					statement.setLong(2, delay);
					statement.setInt(3, BATCH_SIZE);
					statement.setLong(4, delay);
					return this.connections.update(connection, statement);
				}
			});
			deleted += rows;
			if (rows < BATCH_SIZE) {
				break;
			}
		}
		return deleted;
	}

	synchronized void start(Duration interval) {
		Assert.notNull(interval, "'interval' must not be null");
		Assert.isTrue(!interval.isZero() && !interval.isNegative(), "'interval' must be positive");
		Assert.state(this.executor == null, "The clean-up is already started");
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "lock-jdbc-cleanup");
			thread.setDaemon(true);
			return thread;
		});
		executor.scheduleWithFixedDelay(this::cleanUpQuietly, interval.toMillis(), interval.toMillis(),
				TimeUnit.MILLISECONDS);
		this.executor = executor;
	}

	synchronized void stop() {
		ScheduledExecutorService executor = this.executor;
		if (executor != null) {
			executor.shutdownNow();
			this.executor = null;
		}
	}

	private void cleanUpQuietly() {
		String tableName = this.connections.tableName();
		try {
			int deleted = cleanUp();
			if (deleted > 0 && logger.isDebugEnabled()) {
				logger.debug("Deleted " + deleted + " expired rows of " + tableName);
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not clean up expired locks of table '" + tableName + "': " + ex.getMessage());
		}
	}

}
