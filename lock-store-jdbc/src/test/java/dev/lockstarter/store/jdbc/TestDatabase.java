package dev.lockstarter.store.jdbc;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

/**
 * A database server of the JDBC tests: its pools, the signals it takes, and the SQL that
 * differs from one server to another.
 */
interface TestDatabase {

	/**
	 * Return a new pool on the server.
	 * @param connectionTimeout the pool's connection timeout
	 * @param autoCommit whether the pool's connections are in auto-commit
	 * @param isolation the name of the pool's transaction isolation, or {@code null} for
	 * the driver's default
	 * @return the pool
	 */
	HikariDataSource newDataSource(Duration connectionTimeout, boolean autoCommit, @Nullable String isolation);

	/** Stop the server from answering ({@code SIGSTOP}). */
	void pause();

	/** Let the server answer again. */
	void resume();

	/** Stop the server. */
	void stop();

	/** Start the server again, with its data. */
	void restart();

	/**
	 * Return the SQL of a time on the database's clock.
	 * @param ago how long before now, zero for now
	 * @return the SQL expression
	 */
	String before(Duration ago);

	/**
	 * Return the SQL of the milliseconds from the database's clock to a row's expiry.
	 * @return the SQL expression
	 */
	String millisToExpiry();

	/**
	 * Return the SQL of a string parameter followed by a suffix.
	 * @param suffix the SQL of the suffix
	 * @return the SQL expression
	 */
	String parameterFollowedBy(String suffix);

	/**
	 * Return the SQL that inserts 250 free rows whose keys start with the statement's
	 * parameter, expired an hour ago, each with a token of the fence sequence.
	 * @return the SQL statement
	 */
	String insertExpiredRows();

}
