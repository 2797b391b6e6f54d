package dev.lockstarter.store;

/**
 * A {@link LockStore} that announces the release of a lock, so that a waiter can try
 * again at once instead of polling.
 * <p>
 * Notifications are a hint, never a guarantee: they may be late, lost (a dropped
 * connection) or spurious. Waiters keep polling, with backoff, as a safety net, and
 * correctness never depends on a notification arriving.
 *
 * @since 0.1.0
 */
public interface ReleaseNotifyingLockStore extends LockStore {

	/**
	 * Call {@code listener} whenever the lock on {@code key} is released, until the
	 * returned subscription is closed. Listeners run on a store thread and must return
	 * quickly.
	 * @param key the full store key
	 * @param listener the callback
	 * @return the subscription, to close when no longer waiting
	 */
	Subscription subscribe(String key, Runnable listener);

	/**
	 * An active interest in the releases of one key.
	 */
	interface Subscription extends AutoCloseable {

		/**
		 * Stop the notifications; idempotent.
		 */
		@Override
		void close();

	}

}
