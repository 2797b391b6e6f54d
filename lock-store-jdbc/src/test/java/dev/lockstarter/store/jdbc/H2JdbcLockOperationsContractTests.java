package dev.lockstarter.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.LockOperationsContractTests;

/**
 * {@link LockOperationsContractTests} on the {@link JdbcLockStore} over an in-memory H2
 * database. Waiters poll (the store has no release notifications).
 */
class H2JdbcLockOperationsContractTests extends LockOperationsContractTests {

	private static HikariDataSource dataSource;

	private static JdbcLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		dataSource = TestDataSources.h2();
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

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

}
