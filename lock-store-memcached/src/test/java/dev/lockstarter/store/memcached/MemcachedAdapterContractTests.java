package dev.lockstarter.store.memcached;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.integration.LockOperationsLockRegistry;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.adapter.AdapterContractTests;
import dev.lockstarter.test.memcached.MemcachedServerExtension;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * {@link AdapterContractTests} on the {@link MemcachedLockStore}, against a real
 * memcached: the Spring Integration, ShedLock and {@code Lock} adapters. Memcached counts
 * its own expiry in whole seconds, but the store judges expiry in milliseconds by the
 * observed-silence rule on the monotonic clock (the server's expiry only removes
 * abandoned locks, seconds later), so the suite's time-to-lives of a few hundred
 * milliseconds apply.
 */
class MemcachedAdapterContractTests extends AdapterContractTests {

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

	@Override
	protected RenewableLockRegistry<DistributedLock> createLockRegistry(LockOperations operations,
			LockOptions options) {
		return new LockOperationsLockRegistry(operations, options);
	}

	@Override
	protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
		return new LockOperationsLockProvider(operations);
	}

}
