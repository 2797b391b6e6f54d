package dev.lockstarter.core;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Programmatic access to distributed locks. Implemented by {@link LockTemplate}; the
 * auto-configuration exposes one as a bean.
 * <p>
 * Keys are application-level names such as {@code "user:42"}; the configured key prefix is
 * added before they reach the store. A lock is held until it is released or its time-to-live
 * passes, whichever comes first.
 *
 * @since 0.1.0
 */
public interface LockOperations {

	/**
	 * Try once to acquire the lock on a key, without waiting.
	 * @param key the key, not blank
	 * @param ttl how long the lock is held at most if it is not released, positive
	 * @return the attempt: a lease, or the holder's remaining time-to-live
	 * @throws LockStoreException if the store cannot be reached or does not answer in time
	 */
	LockAttempt tryAcquire(String key, Duration ttl);

	/**
	 * Acquire the lock on a key, or fail at once if it is held.
	 * @param key the key, not blank
	 * @param ttl how long the lock is held at most if it is not released, positive
	 * @return the lease, to be closed when the guarded work is done
	 * @throws LockConflictException if the lock is held by another owner
	 * @throws LockStoreException if the store cannot be reached or does not answer in time
	 */
	default Lease acquire(String key, Duration ttl) {
		return tryAcquire(key, ttl).orElseThrow();
	}

	/**
	 * Run a callback while holding the lock on a key, and release it afterwards, whether the
	 * callback returns or throws.
	 * @param <T> the result type
	 * @param key the key, not blank
	 * @param ttl how long the lock is held at most if it is not released, positive
	 * @param callback the guarded work
	 * @return the callback's result
	 * @throws LockConflictException if the lock is held by another owner; the callback does not
	 * run
	 * @throws LockStoreException if the store cannot be reached; the callback does not run
	 */
	default <T> T execute(String key, Duration ttl, Supplier<T> callback) {
		try (Lease lease = acquire(key, ttl)) {
			return callback.get();
		}
	}

}
