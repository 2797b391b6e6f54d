package dev.lockstarter.store.memcached;

import java.io.IOException;
import java.time.Clock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.test.contract.RenewalElsewhereContractTests;
import dev.lockstarter.test.memcached.MemcachedServerExtension;

/**
 * {@link RenewalElsewhereContractTests} on a real Memcached, each store on a client of
 * its own.
 */
class MemcachedRenewalElsewhereTests extends RenewalElsewhereContractTests {

	@RegisterExtension
	static final MemcachedServerExtension memcached = new MemcachedServerExtension();

	private final MemcachedTestClients clients = new MemcachedTestClients();

	@Override
	protected LockStore createStore(ObservedExpiry observed) {
		return new MemcachedLockStore(this.clients.open(memcached.server().socketAddress()), Clock.systemUTC(),
				observed);
	}

	@AfterEach
	void shutDown() throws IOException {
		this.clients.close();
	}

}
