package dev.lockstarter.store;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link ReleaseNotifyingLockStore} that can acquire a lock for a waiter from the
 * thread that read the release announcement, so that the waiter is woken once, with the
 * answer, instead of waking to ask.
 *
 * @since 0.1.0
 */
public interface ReleaseHandoffLockStore extends ReleaseNotifyingLockStore {

	/**
	 * Send an acquisition of the lock on {@code key} for {@code token}, as
	 * {@link #tryAcquire}, without blocking the calling thread: called by a
	 * {@linkplain #subscribe listener} on the store thread that announced a release. The
	 * returned future completes within the store's timeout, with the reply or a
	 * {@link LockStoreException}, possibly on a store thread, where its dependents must
	 * return quickly. A failed attempt may still have been granted: the caller releases
	 * by token.
	 * @param key the full store key
	 * @param token the waiter's owner token
	 * @param ttl the lock's time-to-live, positive
	 * @return the attempt's reply, or empty if the store cannot send one without blocking
	 * at this moment (no connection open, for example); the waiter then tries itself
	 */
	Optional<CompletableFuture<AcquireReply>> tryAcquireOnRelease(String key, String token, Duration ttl);

}
