package dev.lockstarter.store.memcached;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.adapter.ShedLockProviderSuiteTests;
import dev.lockstarter.test.memcached.MemcachedServerExtension;

/**
 * ShedLock's own provider suite ({@link ShedLockProviderSuiteTests}) on the
 * {@link LockOperationsLockProvider} over the {@link MemcachedLockStore}, against a real
 * memcached. The store judges expiry in milliseconds by the observed-silence rule, so the
 * suite's locks of a few milliseconds apply.
 */
class MemcachedShedLockProviderSuiteTests extends ShedLockProviderSuiteTests {

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
	protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
		return new LockOperationsLockProvider(operations);
	}

}
