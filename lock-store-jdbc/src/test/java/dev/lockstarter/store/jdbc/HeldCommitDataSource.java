package dev.lockstarter.store.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link DataSource} over another, whose connections let a test hold the commit of the
 * next operation open: its statements have run, and the database has not committed them
 * yet.
 * <p>
 * Each connection runs in a transaction of the database, also while it tells its user
 * that it is in auto-commit. Then its work commits when the user closes it, or switches
 * auto-commit on again, as one commit at the end of what the database would have
 * committed statement by statement; an explicit {@link Connection#commit()} commits when
 * it is called. Once {@link #holdNextCommit()} was called, the next of these commits
 * waits until the test {@linkplain HeldCommit#release() releases} it.
 */
final class HeldCommitDataSource extends DelegatingDataSource {

	private static final Duration LONGEST_HOLD = Duration.ofSeconds(30);

	private final AtomicReference<@Nullable HeldCommit> next = new AtomicReference<>();

	HeldCommitDataSource(DataSource target) {
		super(target);
	}

	/**
	 * Make the next commit of a connection of this data source wait for the test.
	 * @return the commit to wait for and release
	 */
	HeldCommit holdNextCommit() {
		HeldCommit held = new HeldCommit();
		assertThat(this.next.compareAndSet(null, held)).as("a commit already waiting to be held").isTrue();
		return held;
	}

	@Override
	public Connection getConnection() throws SQLException {
		Connection connection = obtainTargetDataSource().getConnection();
		boolean autoCommit = connection.getAutoCommit();
		connection.setAutoCommit(false);
		return (Connection) Proxy.newProxyInstance(HeldCommitDataSource.class.getClassLoader(),
				new Class<?>[] { Connection.class }, new TransactionalConnection(connection, autoCommit));
	}

	private void commit(Connection connection) throws SQLException {
		HeldCommit held = this.next.getAndSet(null);
		if (held != null) {
			held.hold();
		}
		connection.commit();
	}

	/**
	 * A commit that waits for the test.
	 */
	static final class HeldCommit {

		private final CountDownLatch reached = new CountDownLatch(1);

		private final CountDownLatch released = new CountDownLatch(1);

		private void hold() {
			this.reached.countDown();
			try {
				assertThat(this.released.await(LONGEST_HOLD.toMillis(), TimeUnit.MILLISECONDS))
					.as("commit released by the test within " + LONGEST_HOLD)
					.isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

		/**
		 * Wait until the operation's statements have run and its commit waits.
		 */
		void awaitReached() throws InterruptedException {
			assertThat(this.reached.await(10, TimeUnit.SECONDS)).as("operation waiting for its commit").isTrue();
		}

		/**
		 * Let the commit go.
		 */
		void release() {
			this.released.countDown();
		}

	}

	/**
	 * The connection as its user sees it.
	 */
	private final class TransactionalConnection implements InvocationHandler {

		private final Connection target;

		private boolean autoCommit;

		TransactionalConnection(Connection target, boolean autoCommit) {
			this.target = target;
			this.autoCommit = autoCommit;
		}

		@Override
		public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
			switch (method.getName()) {
				case "getAutoCommit":
					return this.autoCommit;
				case "setAutoCommit":
					boolean on = (Boolean) args[0];
					if (on && !this.autoCommit) {
						commit(this.target);
					}
					this.autoCommit = on;
					return null;
				case "commit":
					commit(this.target);
					return null;
				case "close":
					try {
						if (this.autoCommit && !this.target.isClosed()) {
							commit(this.target);
						}
					}
					finally {
						this.target.close();
					}
					return null;
				default:
					try {
						return method.invoke(this.target, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getTargetException();
					}
			}
		}

	}

}
