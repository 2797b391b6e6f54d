package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.support.JdbcUtils;

/**
 * Obtains the connections of a {@link JdbcLockStore} from its {@link DataSource} on
 * threads of its own, so that the wait for a connection is bounded by the store's
 * timeout, whatever the pool's own bound (HikariCP's {@code connectionTimeout} is 30 s by
 * default, and its check of an idle connection up to 5 s more).
 * <p>
 * A caller that gives up leaves its request behind: a request not started yet is dropped,
 * and a connection that comes after its caller gave up is closed at once, so it goes back
 * to the pool. At most a fixed number of threads wait for the pool at once; the other
 * requests queue behind them, each bounded by its own caller's timeout. The threads are
 * daemons, started on demand and ended after a minute without work. A store has two
 * sources: one of {@value #THREADS} threads for most calls, and one of
 * {@value #RENEWAL_THREADS} for renewals, so that acquisitions waiting for an exhausted
 * pool cannot keep a renewal queued until its lease ends.
 * <p>
 * A failure of the data source, checked or not, is reported as an {@link SQLException}
 * whose cause is the data source's exception, so that the store reports it as any other
 * failure of the database.
 */
final class JdbcConnectionSource {

	/** The most threads that wait for the data source at once, for most calls. */
	static final int THREADS = 8;

	/** The most threads that wait for the data source at once, for renewals. */
	static final int RENEWAL_THREADS = 2;

	private static final AtomicInteger sources = new AtomicInteger();

	private final DataSource dataSource;

	private final Duration timeout;

	private final ThreadPoolExecutor executor;

	/**
	 * Create a source.
	 * @param dataSource the data source
	 * @param timeout the longest wait for a connection by default
	 * @param threads the most threads that wait for the data source at once
	 * @param name the name of the source's threads, followed by a number of the source
	 * and one of the thread
	 */
	JdbcConnectionSource(DataSource dataSource, Duration timeout, int threads, String name) {
		this.dataSource = dataSource;
		this.timeout = timeout;
		this.executor = new ThreadPoolExecutor(threads, threads, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
				threads(name + "-" + sources.incrementAndGet() + "-"));
		this.executor.allowCoreThreadTimeOut(true);
	}

	/**
	 * Return a connection of the data source, waiting at most the store's timeout.
	 * @throws SQLTimeoutException if none came in time
	 * @throws SQLException if the data source failed to give one
	 */
	Connection getConnection() throws SQLException {
		return getConnection(this.timeout);
	}

	/**
	 * Return a connection of the data source, waiting at most {@code wait}.
	 * @throws SQLTimeoutException if none came in time
	 * @throws SQLException if the data source failed to give one
	 */
	Connection getConnection(Duration wait) throws SQLException {
		Request request = new Request();
		this.executor.execute(request);
		try {
			return request.connection.get(wait.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			return abandon(request, new SQLTimeoutException("The DataSource gave no connection within " + wait));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return abandon(request, new SQLException("Interrupted while waiting for a connection", ex));
		}
		catch (ExecutionException ex) {
			throw failure(ex.getCause());
		}
	}

	/**
	 * Give a request up, unless its connection came meanwhile.
	 */
	private Connection abandon(Request request, SQLException failure) throws SQLException {
		if (request.connection.completeExceptionally(new CancellationException())) {
			this.executor.remove(request);
			throw failure;
		}
		try {
			return request.connection.join();
		}
		catch (RuntimeException ex) {
			throw failure(ex.getCause());
		}
	}

	/**
	 * Return the failure of a request as an {@link SQLException}: the data source's own,
	 * or one caused by its unchecked exception (a pool that failed to start, a
	 * misconfigured data source), which is a failure to reach the database as well.
	 * Errors are thrown as they are.
	 */
	private static SQLException failure(@Nullable Throwable cause) {
		if (cause instanceof SQLException sqlException) {
			return sqlException;
		}
		if (cause instanceof Error error) {
			throw error;
		}
		return new SQLException("The DataSource failed to give a connection: " + cause, cause);
	}

	private static ThreadFactory threads(String prefix) {
		AtomicInteger count = new AtomicInteger();
		return (task) -> {
			Thread thread = new Thread(task, prefix + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * One caller's request for a connection.
	 */
	private final class Request implements Runnable {

		private final CompletableFuture<Connection> connection = new CompletableFuture<>();

		@Override
		public void run() {
			if (this.connection.isDone()) {
				// Its caller gave up before it started
				return;
			}
			try {
				Connection obtained = JdbcConnectionSource.this.dataSource.getConnection();
				if (!this.connection.complete(obtained)) {
					JdbcUtils.closeConnection(obtained);
				}
			}
			catch (Throwable ex) {
				this.connection.completeExceptionally(ex);
			}
		}

	}

}
