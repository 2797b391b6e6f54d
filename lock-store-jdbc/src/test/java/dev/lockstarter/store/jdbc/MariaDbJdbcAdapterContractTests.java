package dev.lockstarter.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
