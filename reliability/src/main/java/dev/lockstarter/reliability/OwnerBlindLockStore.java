package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.function.Consumer;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;

/**
 * A negative control for the stores other than Redis: acquires and extends through the
 * real store, but releases by deleting the lock whoever holds it, without the owner check
 * (memcached {@code delete}, DynamoDB {@code DeleteItem} without a condition). A holder
 * paused past its time-to-live resumes and deletes the lock of the holder that took over,
 * and a third one enters while that one is still inside.
 */
final class OwnerBlindLockStore implements LockStore {

	private final LockStore store;

	private final Consumer<String> delete;

	/**
	 * Create a control on a real store.
	 * @param store the real store
	 * @param delete deletes the lock of a store key, whoever holds it
	 */
	OwnerBlindLockStore(LockStore store, Consumer<String> delete) {
		this.store = store;
		this.delete = delete;
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		return this.store.tryAcquire(key, token, ttl);
	}

	@Override
	public boolean release(String key, String token) {
		this.delete.accept(key);
		return true;
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		return this.store.extend(key, token, ttl);
	}

}
