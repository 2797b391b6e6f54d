package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Semaphore;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A {@link DataSource} over a real one that, once {@linkplain #close() closed}, gives
 * connections only as the test {@linkplain #hand(int) hands them out}, to its callers in
 * the order they asked: a pool whose connections are all in use, and which serves its
 * waiters first come, first served, as connections come back.
 */
final class GatedDataSource extends DelegatingDataSource {

	private final Semaphore connections = new Semaphore(0, true);

	private volatile boolean closed;

	GatedDataSource(DataSource target) {
		super(target);
	}

	/** Make every later caller wait for a connection handed out by the test. */
	void close() {
		this.closed = true;
	}

	/**
	 * Let the callers that wait the longest, and later ones if there are fewer, have a
	 * connection each.
	 * @param count the number of connections to hand out
	 */
	void hand(int count) {
		this.connections.release(count);
	}

	/** Give every caller, now and later, a connection at once. */
	void open() {
		if (this.closed) {
			this.closed = false;
			this.connections.release(Integer.MAX_VALUE / 2);
		}
	}

	/** Return the number of callers that wait for a connection. */
	int waiting() {
		return this.connections.getQueueLength();
	}

	@Override
	public Connection getConnection() throws SQLException {
		if (this.closed) {
			try {
				this.connections.acquire();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new SQLException("Interrupted while waiting for a connection", ex);
			}
		}
		return super.getConnection();
	}

}
