package dev.lockstarter.store.etcd;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.LockOperationsContractTests;
import dev.lockstarter.test.etcd.EtcdClusterExtension;

/**
 * {@link LockOperationsContractTests} on the {@link EtcdLockStore}, on a real
 * three-member etcd cluster. Waiters are woken by the store's release watch, with polling
 * as the safety net.
 */
class EtcdLockOperationsContractTests extends LockOperationsContractTests {

	@RegisterExtension
	@Order(1)
	static final EtcdClusterExtension etcd = new EtcdClusterExtension();

	@RegisterExtension
	@Order(2)
	static final SharedEtcdStore shared = new SharedEtcdStore(etcd::endpoints);

	@Override
	protected LockStore createStore() {
		return shared.store();
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

}
