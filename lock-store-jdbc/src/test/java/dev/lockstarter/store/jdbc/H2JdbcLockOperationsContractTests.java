package dev.lockstarter.store.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.LockOperationsContractTests;

/**
 * {@link LockOperationsContractTests} on the {@link JdbcLockStore} over an in-memory H2
 * database. Waiters poll (the store has no release notifications).
 */
class H2JdbcLockOperationsContractTests extends LockOperationsContractTests {

	@RegisterExtension
	static final SharedJdbcStore jdbc = new SharedJdbcStore(TestDataSources::h2);

	@Override
	protected LockStore createStore() {
		return jdbc.store();
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

}
