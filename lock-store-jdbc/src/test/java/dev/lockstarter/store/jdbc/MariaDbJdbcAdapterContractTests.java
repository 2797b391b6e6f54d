package dev.lockstarter.store.jdbc;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.integration.LockOperationsLockRegistry;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.adapter.AdapterContractTests;
import dev.lockstarter.test.mariadb.MariaDbServerExtension;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * {@link AdapterContractTests} on the {@link JdbcLockStore} on a real MariaDB server: the
 * Spring Integration, ShedLock and {@code Lock} adapters.
 */
class MariaDbJdbcAdapterContractTests extends AdapterContractTests {

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
	protected RenewableLockRegistry<DistributedLock> createLockRegistry(LockOperations operations,
			LockOptions options) {
		return new LockOperationsLockRegistry(operations, options);
	}

	@Override
	protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
		return new LockOperationsLockProvider(operations);
	}

}
