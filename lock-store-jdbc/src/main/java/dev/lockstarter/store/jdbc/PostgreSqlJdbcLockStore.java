package dev.lockstarter.store.jdbc;

import java.time.Duration;

import javax.sql.DataSource;

import dev.lockstarter.store.ReleaseNotifyingLockStore;
import org.springframework.util.Assert;

/**
 * The {@link JdbcLockStore} on PostgreSQL, with release notifications
 * ({@link ReleaseNotifyingLockStore}) through PostgreSQL's {@code LISTEN}/{@code NOTIFY}.
 * {@link JdbcLockStore#create} returns it when the data source's database is PostgreSQL.
 * <p>
 * Every statement that frees a key (a release, the release of a shared lock's place, a
 * force-release) also calls {@code pg_notify(channel, key)} for the row it freed, in the
 * same statement: the announcement is sent when the release commits, and only if a row
 * was freed. A lock that merely expires is not announced. The channel is one per table:
 * its name in lower case followed by {@code _released} (see
 * {@link #getReleaseChannel()}).
 * <p>
 * When the first waiter subscribes, the store takes one connection of the data source for
 * itself and keeps it until {@link #close()}: it {@code LISTEN}s on the channel, and a
 * daemon thread of the store receives the announcements and wakes the waiters of each
 * key. A lost connection is replaced after a short delay; releases announced meanwhile
 * are found by the waiters' polling, which goes on, more slowly, as a safety net.
 * Notifications are hints: mutual exclusion never depends on them. Needs PostgreSQL's
 * JDBC driver ({@code org.postgresql:postgresql}); on any other database the first call
 * fails.
 *
 * @since 0.1.0
 */
public class PostgreSqlJdbcLockStore extends JdbcLockStore implements ReleaseNotifyingLockStore {

	private final PostgreSqlReleaseListener releaseListener;

	/**
	 * Create a store on the {@value #DEFAULT_TABLE_NAME} table with a timeout of 2
	 * seconds.
	 * @param dataSource the data source, of a PostgreSQL database
	 */
	public PostgreSqlJdbcLockStore(DataSource dataSource) {
		this(dataSource, DEFAULT_TABLE_NAME, DEFAULT_TIMEOUT);
	}

	/**
	 * Create a store on the given table.
	 * @param dataSource the data source, of a PostgreSQL database
	 * @param tableName the table, optionally qualified by its schema, matching
	 * {@link #TABLE_NAME_PATTERN}
	 * @param timeout the longest time a call waits for a connection of the data source,
	 * and then for each statement, positive; it also bounds each call of the listening
	 * connection
	 */
	public PostgreSqlJdbcLockStore(DataSource dataSource, String tableName, Duration timeout) {
		super(dataSource, tableName, timeout, true);
		this.releaseListener = new PostgreSqlReleaseListener(connections(),
				PostgreSqlDialect.releaseChannel(tableName));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The first subscription starts the listening connection; a release announced before
	 * it listens is found by polling.
	 */
	@Override
	public Subscription subscribe(String key, Runnable listener) {
		Assert.notNull(listener, "'listener' must not be null");
		return this.releaseListener.subscribe(storedKey(key), listener);
	}

	/**
	 * Return the PostgreSQL channel on which the releases of the store's keys are
	 * announced: the table's name in lower case followed by {@code _released}, cut and
	 * completed with a hash when longer than PostgreSQL's 63 bytes.
	 * @return the channel
	 */
	public String getReleaseChannel() {
		return this.releaseListener.channel();
	}

	/**
	 * Stop the clean-up, if any, and the listening connection, which stops listening and
	 * goes back to the pool. Waits for it at most the store's timeout and 1.5 s more.
	 */
	@Override
	public void close() {
		try {
			super.close();
		}
		finally {
			this.releaseListener.close();
		}
	}

	PostgreSqlReleaseListener releaseListener() {
		return this.releaseListener;
	}

}
