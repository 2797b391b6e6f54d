package dev.lockstarter.store.memcached;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.ReactiveLockOperationsContractTests;
import dev.lockstarter.test.memcached.MemcachedServerExtension;

/**
 * {@link ReactiveLockOperationsContractTests} on the {@link MemcachedLockStore}, against
 * a real memcached: a store without reactive operations, called on the bounded elastic
 * scheduler.
 */
class MemcachedReactiveLockOperationsContractTests extends ReactiveLockOperationsContractTests {

	@RegisterExtension
	static final MemcachedServerExtension memcached = new MemcachedServerExtension();

	private static MemcachedLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		sharedStore = MemcachedLockStore.create(List.of(memcached.server().socketAddress()), Duration.ofSeconds(1),
				Duration.ofSeconds(2));
	}

	@AfterAll
	static void destroySharedStore() throws IOException {
		if (sharedStore != null) {
			sharedStore.destroy();
		}
	}

	@Override
	protected LockStore createStore() {
		return sharedStore;
	}

}
