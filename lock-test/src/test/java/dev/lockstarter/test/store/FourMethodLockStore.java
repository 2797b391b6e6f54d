package dev.lockstarter.test.store;

import java.time.Duration;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;

/**
 * A real in-process {@link LockStore} with the four operations of the interface and no
 * optional ability: it keeps no results, notifies no releases, has no reactive or
 * multi-key operations. The locks are those of an {@link InMemoryLockStore}, reached
 * through the four operations only, so that templates take their generic paths.
 */
final class FourMethodLockStore implements LockStore {

	private final InMemoryLockStore locks = new InMemoryLockStore();

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		return this.locks.tryAcquire(key, token, ttl);
	}

	@Override
	public boolean release(String key, String token) {
		return this.locks.release(key, token);
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		return this.locks.extend(key, token, ttl);
	}

	@Override
	public Duration timeToExpiry(String key) {
		return this.locks.timeToExpiry(key);
	}

}
