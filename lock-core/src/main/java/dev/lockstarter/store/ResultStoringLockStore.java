package dev.lockstarter.store;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A {@link LockStore} that can keep a short-lived result next to a lock: the value a
 * holder leaves for the callers that waited for it (single-flight), or the response of an
 * idempotent request, kept for its replays.
 * <p>
 * A result belongs to the lock's key, not to one acquisition: it outlives the lock for
 * its own time-to-live, and a later holder of the key replaces it. Only the current
 * holder can store one, so a holder whose lock expired and was taken over cannot
 * overwrite the new holder's result.
 *
 * @since 0.1.0
 */
public interface ResultStoringLockStore extends LockStore {

	/**
	 * Keep {@code result} for the key of a lock for {@code ttl}, replacing any earlier
	 * result of the key, if the lock is held by {@code token}.
	 * @param key the full store key of the lock
	 * @param token the owner token given to {@link #tryAcquire}
	 * @param result the result's bytes
	 * @param ttl how long the result is kept, positive
	 * @return {@code true} if the lock was held by {@code token} and the result is
	 * stored; {@code false} if the lock had expired or belongs to another owner (nothing
	 * is stored)
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	boolean putResult(String key, String token, byte[] result, Duration ttl);

	/**
	 * Return the result last kept for the key of a lock, if it has not expired.
	 * @param key the full store key of the lock
	 * @return the result's bytes, or {@code null} if there is none
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	byte @Nullable [] getResult(String key);

	/**
	 * Try to acquire the lock on a key as {@link #tryAcquire} does, and read the result
	 * kept for the key as {@link #getResult} does, whoever holds the lock: one store call
	 * where the store can make it one. The result is read no later than the acquisition:
	 * in the same atomic call, or before it (the default reads, then acquires), so a
	 * single-flight caller notes the result kept before it arrived. A caller that needs
	 * the result as it is once it holds the lock (an idempotent request) reads it after
	 * acquiring instead.
	 * @param key the full store key of the lock
	 * @param token the owner token
	 * @param ttl the time-to-live
	 * @return the acquisition and the result kept when it was made
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time, in which case the lock may have been acquired
	 */
	default AcquireReplyWithResult tryAcquireReadingResult(String key, String token, Duration ttl) {
		byte[] kept = getResult(key);
		return new AcquireReplyWithResult(tryAcquire(key, token, ttl), kept);
	}

	/**
	 * Keep a result for the key of a lock, as {@link #putResult} does, and release the
	 * lock, if it is held by {@code token}: one store call where the store can make it
	 * one. The default keeps, then releases.
	 * @param key the full store key of the lock
	 * @param token the owner token
	 * @param result the result's bytes
	 * @param ttl how long the result is kept, positive
	 * @return {@code true} if the lock was held by {@code token}, the result is stored
	 * and the lock released; {@code false} if the lock had expired or belongs to another
	 * owner (nothing is stored)
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time, in which case the lock may still be held
	 */
	default boolean releaseKeepingResult(String key, String token, byte[] result, Duration ttl) {
		boolean kept = putResult(key, token, result, ttl);
		return release(key, token) && kept;
	}

}
