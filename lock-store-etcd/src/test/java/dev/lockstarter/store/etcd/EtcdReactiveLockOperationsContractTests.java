package dev.lockstarter.store.etcd;

import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
	static final EtcdClusterExtension etcd = new EtcdClusterExtension();

	private static Client client;

	private static EtcdLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		client = EtcdTestClients.client(etcd.endpoints());
		sharedStore = new EtcdLockStore(client, EtcdTestClients.TIMEOUT);
	}

	@AfterAll
	static void closeClient() {
		if (sharedStore != null) {
			sharedStore.close();
		}
		if (client != null) {
			client.close();
		}
	}

	@Override
	protected LockStore createStore() {
		return sharedStore;
	}

}
