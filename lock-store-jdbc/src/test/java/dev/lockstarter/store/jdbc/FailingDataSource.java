package dev.lockstarter.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A {@link DataSource} over a real one whose {@code getConnection} throws an unchecked
 * exception once the test asks it to, as a pool does that failed to start (HikariCP's
 * {@code PoolInitializationException}) or a misconfigured data source.
 */
final class FailingDataSource extends DelegatingDataSource {

	private volatile @Nullable RuntimeException failure;

	FailingDataSource(DataSource target) {
		super(target);
	}

	/**
	 * Make every later request for a connection throw a failure.
	 * @param failure the exception to throw
	 */
	void failWith(RuntimeException failure) {
		this.failure = failure;
	}

	@Override
	public Connection getConnection() throws SQLException {
		RuntimeException failure = this.failure;
		if (failure != null) {
			throw failure;
		}
		return super.getConnection();
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		RuntimeException failure = this.failure;
		if (failure != null) {
			throw failure;
		}
		return super.getConnection(username, password);
	}

}
