package dev.lockstarter.store.memcached;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.LockOperationsContractTests;
import dev.lockstarter.test.memcached.MemcachedServerExtension;

/**
 * {@link LockOperationsContractTests} on the {@link MemcachedLockStore}, against a real
 * memcached. Waiters poll (the store has no release notifications), and the fencing test
 * is skipped: the store issues no fencing tokens.
 */
class MemcachedLockOperationsContractTests extends LockOperationsContractTests {

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
