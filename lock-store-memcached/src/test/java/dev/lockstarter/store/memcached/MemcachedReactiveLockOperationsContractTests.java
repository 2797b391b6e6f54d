package dev.lockstarter.store.memcached;

import org.junit.jupiter.api.Order;
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
	@Order(1)
	static final MemcachedServerExtension memcached = new MemcachedServerExtension();

	@RegisterExtension
	@Order(2)
	static final SharedMemcachedStore memcachedStore = new SharedMemcachedStore(
			() -> memcached.server().socketAddress());

	@Override
	protected LockStore createStore() {
		return memcachedStore.store();
	}

}
