package dev.lockstarter.store.jdbc;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.mariadb.MariaDbServerExtension;

/**
 * The MariaDB server of a test class as a {@link TestDatabase}.
 *
 * @param mariadb the extension that runs the server
 */
record MariaDbTestDatabase(MariaDbServerExtension mariadb) implements TestDatabase {

	@Override
	public HikariDataSource newDataSource(Duration connectionTimeout, boolean autoCommit, @Nullable String isolation) {
		return TestDataSources.mariadb(this.mariadb.server(), connectionTimeout, autoCommit, isolation);
	}

	@Override
	public void pause() {
		this.mariadb.server().pause();
	}

	@Override
	public void resume() {
		this.mariadb.server().resume();
	}

	@Override
	public void stop() {
		this.mariadb.server().stop();
	}

	@Override
	public void restart() {
		this.mariadb.server().restart();
	}

	@Override
	public String before(Duration ago) {
		return "UTC_TIMESTAMP(6) - INTERVAL " + ago.toNanos() / 1000 + " MICROSECOND";
	}

	@Override
	public String millisToExpiry() {
		return "TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) DIV 1000";
	}

	@Override
	public String parameterFollowedBy(String suffix) {
		return "CONCAT(?, " + suffix + ")";
	}

	@Override
	public String insertExpiredRows() {
		return "INSERT INTO lock_store (lock_key, owner_token, expires_at, fence) SELECT CONCAT(?, seq), NULL, "
				+ "UTC_TIMESTAMP(6) - INTERVAL 1 HOUR, NEXTVAL(lock_store_fence_seq) FROM seq_1_to_250";
	}

}
