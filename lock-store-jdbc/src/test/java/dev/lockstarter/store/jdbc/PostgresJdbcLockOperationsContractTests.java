package dev.lockstarter.store.jdbc;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.LockOperationsContractTests;
import dev.lockstarter.test.postgres.PostgresServerExtension;

/**
 * {@link LockOperationsContractTests} on the {@link JdbcLockStore} on a real PostgreSQL
 * server: the {@link PostgreSqlJdbcLockStore}, whose waiters are woken by release
 * notifications.
 */
class PostgresJdbcLockOperationsContractTests extends LockOperationsContractTests {

	@RegisterExtension
	@Order(1)
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedJdbcStore jdbc = new SharedJdbcStore(() -> TestDataSources.postgres(postgres.server()));

	@Override
	protected LockStore createStore() {
		return jdbc.store();
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

}
