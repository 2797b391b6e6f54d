package dev.lockstarter.store;

import java.time.Duration;

/**
 * A {@link LockStore} that draws a lock's fencing token only when its holder asks for it,
 * so that acquisitions whose holder never reads one cost no fencing work and leave no
 * fencing state in the store.
 * <p>
 * {@link #tryAcquire} (and {@link MultiKeyLockStore#tryAcquireAll}) then answer
 * {@link AcquireReply#NO_FENCING_TOKEN}, and the holder draws its token with
 * {@link #fencingToken(String, String)}, once: a second draw for the same acquisition
 * would answer a greater number. A token is drawn only while the lock is held by the
 * caller's owner token, so tokens still strictly increase in the order in which owners
 * held the key: two owners never hold it at once, and each draw happens while its owner
 * holds it.
 * <p>
 * {@link #tryAcquireFenced} draws the token in the same operation as the acquisition, for
 * callers that always need it (a lease handed to a client outside the JVM, a reactive
 * lease whose token must be read without blocking).
 *
 * @since 0.1.0
 */
public interface FencingOnDemandLockStore extends LockStore {

	/**
	 * Acquire as {@link #tryAcquire}, and draw the fencing token of an acquired lock in
	 * the same operation.
	 * @param key the full store key
	 * @param token the new owner's token, unique to this acquisition
	 * @param ttl the lock's time-to-live, positive
	 * @return the answer of {@link #tryAcquire}, with the fencing token when acquired
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	AcquireReply tryAcquireFenced(String key, String token, Duration ttl);

	/**
	 * Draw the fencing token of the lock on {@code key}, if {@code token} holds it: a
	 * number greater than every token drawn before for the same key.
	 * @param key the full store key
	 * @param token the owner token given to {@link #tryAcquire}
	 * @return the token, positive, or {@link AcquireReply#NO_FENCING_TOKEN} if
	 * {@code token} no longer holds the lock (nothing was drawn)
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	long fencingToken(String key, String token);

}
