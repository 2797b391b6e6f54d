package dev.lockstarter.store.etcd;

import java.time.Clock;
import java.util.List;

import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.test.contract.RenewalElsewhereContractTests;
import dev.lockstarter.test.etcd.EtcdServerExtension;

/**
 * {@link RenewalElsewhereContractTests} on a real etcd, the two stores of a test each on
 * a client of its own.
 */
class EtcdRenewalElsewhereTests extends RenewalElsewhereContractTests {

	@RegisterExtension
	static final EtcdServerExtension etcd = new EtcdServerExtension();

	private static Client[] clients;

	private int created;

	@BeforeAll
	static void startClients() {
		clients = new Client[] { EtcdTestClients.client(List.of(etcd.endpoint())),
				EtcdTestClients.client(List.of(etcd.endpoint())) };
	}

	@AfterAll
	static void closeClients() {
		for (Client client : clients) {
			client.close();
		}
	}

	@BeforeEach
	void firstClient() {
		this.created = 0;
	}

	@Override
	protected LockStore createStore(ObservedExpiry observed) {
		Client client = clients[this.created++ % clients.length];
		return new EtcdLockStore(client, EtcdLockStore.DEFAULT_PREFIX, EtcdLockStore.DEFAULT_RESULTS_PREFIX,
				EtcdTestClients.TIMEOUT, Clock.systemUTC(), observed);
	}

}
