package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import dev.lockstarter.store.ReleaseListeners;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import org.springframework.jdbc.support.JdbcUtils;

/**
 * The release notifications of a {@link PostgreSqlJdbcLockStore}: one connection of the
 * store's data source, taken when the first waiter subscribes and kept until the store
 * closes, on which the store {@code LISTEN}s on its table's channel, and a daemon thread
 * that waits on it for notifications, at most {@link #POLL} at a time (pgjdbc's
 * {@link PGConnection#getNotifications(int)}), and calls the listeners of each announced
 * key.
 * <p>
 * Every call on the connection is bounded: its network timeout is the store's timeout
 * (statements get a query timeout a second longer, as a second line), and the wait for
 * notifications returns after {@link #POLL} whether the server answers or not, a paused
 * server included. After {@link #IDLE_CHECK} without a notification, a {@code SELECT 1}
 * checks the connection, so that one a network dropped silently is noticed. After a
 * failure (the server ended the session or restarted, the network broke, the check got no
 * answer) the connection is closed, and another one is taken after
 * {@link #RECONNECT_DELAY}, doubled after each failed attempt up to
 * {@link #MAX_RECONNECT_DELAY}; failures are logged at debug. Releases announced
 * meanwhile are lost: the waiters' polling finds them. On close, the connection stops
 * listening ({@code UNLISTEN *}) before it goes back to the pool.
 * <p>
 * An announcement is passed on as soon as it is read: the connection skips the
 * millisecond-long read with which pgjdbc ends each call that received one
 * ({@link PgjdbcTrailingRead}), and gets the driver's behaviour back before it returns to
 * the pool.
 * <p>
 * This class and {@link PgjdbcTrailingRead} are the only ones that use pgjdbc, an
 * optional dependency: only {@link PostgreSqlJdbcLockStore} loads it.
 */
final class PostgreSqlReleaseListener implements AutoCloseable {

	/** The longest wait for notifications between two checks of whether to stop. */
	static final Duration POLL = Duration.ofMillis(500);

	/** The delay before the first attempt to listen again after a failure. */
	static final Duration RECONNECT_DELAY = Duration.ofMillis(200);

	/** The longest delay between two attempts to listen again. */
	static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(5);

	/** The time without a notification after which the connection is checked. */
	static final Duration IDLE_CHECK = Duration.ofSeconds(10);

	private static final Executor DIRECT = Runnable::run;

	private static final Log logger = LogFactory.getLog(PostgreSqlReleaseListener.class);

	private final JdbcConnections connections;

	private final String channel;

	private final ReleaseListeners listeners = new ReleaseListeners();

	private final AtomicLong notifications = new AtomicLong();

	private final AtomicLong listens = new AtomicLong();

	private @Nullable Thread thread;

	private volatile boolean closed;

	private volatile boolean listening;

	private volatile boolean trailingReadSkipped;

	private long reconnectDelayMillis = RECONNECT_DELAY.toMillis();

	PostgreSqlReleaseListener(JdbcConnections connections, String channel) {
		this.connections = connections;
		this.channel = channel;
	}

	/**
	 * Call {@code listener} on each announced release of a stored key, starting the
	 * listening thread if it does not run yet. A release announced before the first
	 * {@code LISTEN} is not seen.
	 */
	ReleaseNotifyingLockStore.Subscription subscribe(String storedKey, Runnable listener) {
		ReleaseNotifyingLockStore.Subscription subscription = this.listeners.add(storedKey, listener);
		start();
		return subscription;
	}

	/** The channel, as {@code pg_notify} names it. */
	String channel() {
		return this.channel;
	}

	/** Whether the connection listens now. */
	boolean isListening() {
		return this.listening;
	}

	/** The number of announcements received on the channel so far. */
	long notificationsReceived() {
		return this.notifications.get();
	}

	/**
	 * Whether the listening connection skips pgjdbc's trailing read
	 * ({@link PgjdbcTrailingRead}).
	 */
	boolean isTrailingReadSkipped() {
		return this.trailingReadSkipped;
	}

	/** Whether the listening thread runs. */
	synchronized boolean isRunning() {
		Thread current = this.thread;
		return current != null && current.isAlive();
	}

	/** The number of times a connection started to listen. */
	long listens() {
		return this.listens.get();
	}

	/**
	 * Stop listening: wait for the thread to let its connection go, at most {@link #POLL}
	 * and the store's timeout (the time to notice and then {@code UNLISTEN}), and a
	 * second more.
	 */
	@Override
	public void close() {
		Thread current;
		synchronized (this) {
			this.closed = true;
			current = this.thread;
		}
		if (current == null) {
			return;
		}
		// Ends a wait for a connection or between two attempts
		current.interrupt();
		try {
			current.join(POLL.toMillis() + this.connections.timeout().toMillis() + 1000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private synchronized void start() {
		if (this.thread != null || this.closed) {
			return;
		}
		Thread listener = new Thread(this::run, "lock-jdbc-release-listener-" + this.channel);
		listener.setDaemon(true);
		this.thread = listener;
		listener.start();
	}

	private void run() {
		while (!this.closed) {
			try {
				listen();
			}
			catch (SQLException | RuntimeException ex) {
				if (this.closed) {
					return;
				}
				if (logger.isDebugEnabled()) {
					logger.debug("Release notifications of the JDBC lock store on channel '" + this.channel
							+ "' stopped; listening again in " + this.reconnectDelayMillis + " ms", ex);
				}
				try {
					TimeUnit.MILLISECONDS.sleep(this.reconnectDelayMillis);
				}
				catch (InterruptedException interrupted) {
					// close() interrupts: the loop's condition ends it
				}
				this.reconnectDelayMillis = Math.min(this.reconnectDelayMillis * 2, MAX_RECONNECT_DELAY.toMillis());
			}
		}
	}

	/**
	 * Listen on a connection of its own until the listener closes (then return) or the
	 * connection fails (then throw).
	 */
	private void listen() throws SQLException {
		Connection connection = this.connections.connection();
		int networkTimeout = -1;
		try {
			networkTimeout = connection.getNetworkTimeout();
			connection.setNetworkTimeout(DIRECT, (int) Math.min(Integer.MAX_VALUE, timeoutMillis()));
			// Notifications are delivered between transactions: LISTEN must commit
			if (!connection.getAutoCommit()) {
				connection.setAutoCommit(true);
			}
			PGConnection postgres = connection.unwrap(PGConnection.class);
			this.trailingReadSkipped = PgjdbcTrailingRead.skip(connection);
			execute(connection, "LISTEN \"" + this.channel + "\"");
			this.listening = true;
			this.listens.incrementAndGet();
			this.reconnectDelayMillis = RECONNECT_DELAY.toMillis();
			try {
				receive(connection, postgres);
			}
			catch (SQLException ex) {
				markIfBroken(connection);
				throw ex;
			}
			this.listening = false;
			execute(connection, "UNLISTEN *");
			// Drop what came before UNLISTEN, which the pool's next user would find
			postgres.getNotifications(-1);
		}
		finally {
			this.listening = false;
			if (this.trailingReadSkipped) {
				PgjdbcTrailingRead.restore(connection);
				this.trailingReadSkipped = false;
			}
			restoreAndClose(connection, networkTimeout);
		}
	}

	private void receive(Connection connection, PGConnection postgres) throws SQLException {
		long lastHeard = System.nanoTime();
		while (!this.closed) {
			PGNotification[] received = postgres.getNotifications((int) POLL.toMillis());
			if (received != null && received.length > 0) {
				lastHeard = System.nanoTime();
				for (PGNotification notification : received) {
					if (this.channel.equals(notification.getName())) {
						this.notifications.incrementAndGet();
						released(notification.getParameter());
					}
				}
			}
			else if (System.nanoTime() - lastHeard > IDLE_CHECK.toNanos()) {
				execute(connection, "SELECT 1");
				lastHeard = System.nanoTime();
			}
		}
	}

	/**
	 * Run one statement through the pool's own connection after the driver's connection
	 * failed: the unwrapped driver bypasses the pool, so a pool such as HikariCP would
	 * otherwise take the dead connection back as a good one and hand it out again.
	 */
	private void markIfBroken(Connection connection) {
		try {
			execute(connection, "SELECT 1");
		}
		catch (SQLException | RuntimeException ex) {
			// Broken, as expected: the pool saw it fail
		}
	}

	private void released(String storedKey) {
		try {
			this.listeners.released(storedKey);
		}
		catch (RuntimeException ex) {
			logger.debug("A release listener of the JDBC lock store failed", ex);
		}
	}

	private void execute(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			// The network timeout is the bound. PostgreSQL's driver enforces a query
			// timeout with a cancel request on a new connection, and a statement waits
			// for that request to end (up to 10 s when the server does not answer): so
			// this one, a second line, comes a second after the network timeout, which
			// ends the statement first
			statement.setQueryTimeout(this.connections.queryTimeoutSeconds() + 1);
			statement.execute(sql);
		}
	}

	private long timeoutMillis() {
		return this.connections.timeout().toMillis();
	}

	private static void restoreAndClose(Connection connection, int networkTimeout) {
		try {
			if (networkTimeout >= 0 && !connection.isClosed()) {
				connection.setNetworkTimeout(DIRECT, networkTimeout);
			}
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("Could not restore the network timeout of a connection of the JDBC lock store", ex);
		}
		JdbcUtils.closeConnection(connection);
	}

}
