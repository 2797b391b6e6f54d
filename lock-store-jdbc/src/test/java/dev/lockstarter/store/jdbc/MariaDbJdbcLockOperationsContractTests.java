package dev.lockstarter.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.LockOperationsContractTests;
import dev.lockstarter.test.mariadb.MariaDbServerExtension;

/**
 * {@link LockOperationsContractTests} on the {@link JdbcLockStore} on a real MariaDB
 * server. Waiters poll (the store has no release notifications).
 */
class MariaDbJdbcLockOperationsContractTests extends LockOperationsContractTests {

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
