package dev.lockstarter.store.jdbc;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.postgres.PostgresServerExtension;

/**
 * The PostgreSQL server of a test class as a {@link TestDatabase}.
 *
 * @param postgres the extension that runs the server
 */
record PostgresTestDatabase(PostgresServerExtension postgres) implements TestDatabase {

	@Override
	public HikariDataSource newDataSource(Duration connectionTimeout, boolean autoCommit, @Nullable String isolation) {
		return TestDataSources.postgres(this.postgres.server(), connectionTimeout, autoCommit, isolation);
	}

	@Override
	public void pause() {
		this.postgres.server().pause();
	}

	@Override
	public void resume() {
		this.postgres.server().resume();
	}

	@Override
	public void stop() {
		this.postgres.server().stop();
	}

	@Override
	public void restart() {
		this.postgres.server().restart();
	}

	@Override
	public String before(Duration ago) {
		return "clock_timestamp() - INTERVAL '" + ago.toNanos() / 1000 + " microseconds'";
	}

	@Override
	public String millisToExpiry() {
		return "CAST(EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000 AS BIGINT)";
	}

	@Override
	public String parameterFollowedBy(String suffix) {
		return "? || " + suffix;
	}

	@Override
	public String insertExpiredRows() {
		return "INSERT INTO lock_store (lock_key, owner_token, expires_at, fence) SELECT ? || g, NULL, "
				+ "clock_timestamp() - INTERVAL '1 hour', nextval('lock_store_fence_seq') "
				+ "FROM generate_series(1, 250) g";
	}

}
