package dev.lockstarter.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.SharedLockStore;

/**
 * The places of a {@link SharedLockStore}'s shared locks, seen as a {@link LockStore}, so
 * that the leases, the renewer and the cleaner of failed acquisitions release and extend
 * a permit or a read/write place as they do a mutex. An acquisition through this view
 * asks for the write place without waiting; the engine's acquisitions ask the store for
 * their kind through a {@link KeyAcquirer} instead.
 */
class SharedLockView implements LockStore {

	private final SharedLockStore store;

	SharedLockView(SharedLockStore store) {
		this.store = store;
	}

	/**
	 * The view of a store's shared locks, announcing their releases where the store
	 * announces releases.
	 * @param store the store
	 * @param notifying the same store as one that announces releases, or {@code null}
	 * @return the view
	 */
	static SharedLockView of(SharedLockStore store, @Nullable ReleaseNotifyingLockStore notifying) {
		return (notifying != null) ? new Notifying(store, notifying) : new SharedLockView(store);
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		return this.store.tryAcquireWrite(key, token, ttl, Duration.ZERO);
	}

	@Override
	public boolean release(String key, String token) {
		return this.store.releaseShared(key, token);
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		return this.store.extendShared(key, token, ttl);
	}

	@Override
	public Duration timeToExpiry(String key) {
		return this.store.sharedTimeToExpiry(key);
	}

	private static final class Notifying extends SharedLockView implements ReleaseNotifyingLockStore {

		private final ReleaseNotifyingLockStore notifying;

		Notifying(SharedLockStore store, ReleaseNotifyingLockStore notifying) {
			super(store);
			this.notifying = notifying;
		}

		@Override
		public Subscription subscribe(String key, Runnable listener) {
			return this.notifying.subscribe(key, listener);
		}

	}

}
