package dev.lockstarter.core;

import java.util.Optional;

import dev.lockstarter.store.LockStoreException;

/**
 * The results kept next to locks: what a holder stored with {@link Lease#putResult}, for
 * the callers that waited for its lock, such as the followers of a single-flight method
 * and the replays of an idempotent request. Obtained from
 * {@link LockOperations#results()} when the lock store keeps results.
 *
 * @since 0.1.0
 */
public interface LockResults {

	/**
	 * Return the result that a holder of the key kept with {@link Lease#putResult}, if it
	 * has not expired.
	 * @param key the key, not blank
	 * @return the result's bytes, or empty
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	Optional<byte[]> findResult(String key);

	/**
	 * Try to acquire the lock on a key as
	 * {@link LockOperations#tryAcquire(String, LockOptions)} does, and read the result
	 * kept for the key as {@link #findResult} does, in the same store call where the
	 * store can (Redis: one script), so that it is never read later than the acquisition.
	 * A single-flight caller notes the result already there when it arrives without a
	 * round trip of its own.
	 * @param key the key, not blank
	 * @param options the options
	 * @return the attempt and the result kept when it was made (the last try's, when it
	 * waited)
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	LockAttemptWithResult tryAcquireReadingResult(String key, LockOptions options);

}
