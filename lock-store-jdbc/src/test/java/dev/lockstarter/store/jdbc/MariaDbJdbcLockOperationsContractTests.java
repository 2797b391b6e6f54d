package dev.lockstarter.store.jdbc;

import org.junit.jupiter.api.Order;
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
	@Order(1)
	static final MariaDbServerExtension mariadb = new MariaDbServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedJdbcStore jdbc = new SharedJdbcStore(() -> TestDataSources.mariadb(mariadb.server()));

	@Override
	protected LockStore createStore() {
		return jdbc.store();
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

}
