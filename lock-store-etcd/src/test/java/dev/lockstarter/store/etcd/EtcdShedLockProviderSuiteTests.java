package dev.lockstarter.store.etcd;

import java.util.List;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.adapter.ShedLockProviderSuiteTests;
import dev.lockstarter.test.etcd.EtcdServerExtension;

/**
 * ShedLock's own provider suite ({@link ShedLockProviderSuiteTests}) on the
 * {@link LockOperationsLockProvider} over the {@link EtcdLockStore}, on a real etcd: one
 * member, since the suite is about the provider, and the store's suites run on a cluster
 * of three.
 */
class EtcdShedLockProviderSuiteTests extends ShedLockProviderSuiteTests {

	@RegisterExtension
	@Order(1)
	static final EtcdServerExtension etcd = new EtcdServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedEtcdStore shared = new SharedEtcdStore(() -> List.of(etcd.endpoint()));

	@Override
	protected LockStore createStore() {
		return shared.store();
	}

	@Override
	protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
		return new LockOperationsLockProvider(operations);
	}

}
