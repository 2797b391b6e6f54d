package dev.lockstarter.store.etcd;

import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
