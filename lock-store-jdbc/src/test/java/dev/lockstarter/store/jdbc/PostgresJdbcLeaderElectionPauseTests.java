package dev.lockstarter.store.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.integration.LeaderElectionPauseTests;
import dev.lockstarter.integration.MemberStores;
import dev.lockstarter.test.postgres.PostgresServerExtension;

/**
 * {@link LeaderElectionPauseTests} on the {@link JdbcLockStore}, against a real
 * PostgreSQL server; each member has a connection pool of its own.
 */
class PostgresJdbcLeaderElectionPauseTests extends LeaderElectionPauseTests {

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@Override
	protected Class<? extends MemberStores> memberStores() {
		return Stores.class;
	}

	@Override
	protected String address() {
		return postgres.jdbcUrl() + "?user=" + postgres.username();
	}

	public static final class Stores implements MemberStores {

		@Override
		public Opened open(String address) {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(address);
			config.setMaximumPoolSize(4);
			config.setConnectionTimeout(2000);
			config.addDataSourceProperty("connectTimeout", "2");
			HikariDataSource dataSource = new HikariDataSource(config);
			JdbcLockStore store = new JdbcLockStore(dataSource);
			store.createSchema();
			return new Opened(store, () -> {
				store.close();
				dataSource.close();
			});
		}

	}

}
