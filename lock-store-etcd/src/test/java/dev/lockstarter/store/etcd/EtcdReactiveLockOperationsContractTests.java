package dev.lockstarter.store.etcd;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.ReactiveLockOperationsContractTests;
import dev.lockstarter.test.etcd.EtcdClusterExtension;

/**
 * {@link ReactiveLockOperationsContractTests} on the {@link EtcdLockStore}, on a real
 * three-member etcd cluster. A store without reactive operations, called on the bounded
 * elastic scheduler.
 */
class EtcdReactiveLockOperationsContractTests extends ReactiveLockOperationsContractTests {

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
