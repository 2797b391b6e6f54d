package dev.lockstarter.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.ReactiveLockOperationsContractTests;
import dev.lockstarter.test.mariadb.MariaDbServerExtension;

/**
 * {@link ReactiveLockOperationsContractTests} on the {@link JdbcLockStore} on a real
 * MariaDB server: a store without reactive operations, called on the bounded elastic
 * scheduler, whose waiters poll.
 */
class MariaDbJdbcReactiveLockOperationsContractTests extends ReactiveLockOperationsContractTests {

	@RegisterExtension
	static final MariaDbServerExtension mariadb = new MariaDbServerExtension();

	private static HikariDataSource dataSource;

	private static JdbcLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		dataSource = TestDataSources.mariadb(mariadb.server());
		sharedStore = new JdbcLockStore(dataSource);
		sharedStore.createSchema();
	}

	@AfterAll
	static void closeDataSource() {
		if (dataSource != null) {
			dataSource.close();
		}
	}

	@Override
	protected LockStore createStore() {
		return sharedStore;
	}

}
