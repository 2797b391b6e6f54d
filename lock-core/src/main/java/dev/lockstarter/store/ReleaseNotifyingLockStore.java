package dev.lockstarter.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

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
	 * Send an acquisition of the lock on {@code key} for {@code token}, as
	 * {@link #tryAcquire}, without blocking the calling thread: called by a
	 * {@linkplain #subscribe listener} on the store thread that announced a release, so
	 * that the waiter is woken once, with the answer, instead of waking to ask. The
	 * returned future completes within the store's timeout, with the result or a
	 * {@link LockStoreException}, possibly on a store thread, where its dependents must
	 * return quickly. A failed attempt may still have been granted: the caller releases
	 * by token. A store that cannot send without blocking returns {@code null}, and the
	 * waiter tries itself.
	 * @param key the full store key
	 * @param token the waiter's owner token
	 * @param ttl the lock's time-to-live, positive
	 * @return the attempt's result, or {@code null} if this store cannot attempt from a
	 * listener
	 * @since 0.1.0
	 */
	default @Nullable CompletableFuture<AcquireReply> tryAcquireOnRelease(String key, String token, Duration ttl) {
		return null;
	}

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
