package dev.lockstarter.store.zookeeper;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.adapter.ShedLockProviderSuiteTests;
import dev.lockstarter.test.zookeeper.ZooKeeperServerExtension;

/**
 * ShedLock's own provider suite ({@link ShedLockProviderSuiteTests}) on the
 * {@link LockOperationsLockProvider} over the {@link ZooKeeperLockStore}, on a real
 * ZooKeeper: one server, since the suite is about the provider, and the store's suites
 * run on an ensemble of three.
 */
class ZooKeeperShedLockProviderSuiteTests extends ShedLockProviderSuiteTests {

	@RegisterExtension
	@Order(1)
	static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedZooKeeperStore shared = new SharedZooKeeperStore(zooKeeper::connectString);

	@Override
	protected LockStore createStore() {
		return shared.store();
	}

	@Override
	protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
		return new LockOperationsLockProvider(operations);
	}

}
