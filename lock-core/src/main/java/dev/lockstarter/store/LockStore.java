package dev.lockstarter.store;

import java.time.Duration;
import java.util.List;

/**
 * The storage behind distributed locks. Every operation is atomic in the store and, for a
 * remote store, costs one round trip.
 * <p>
 * A lock is a key holding the owner token of its holder, with a time-to-live.
 * Implementations must guarantee:
 * <ul>
 * <li>at most one owner holds a key at any time while the store keeps its data;</li>
 * <li>only the owner, identified by its token, can {@link #release} or {@link #extend}
 * the lock, so a holder whose lock expired cannot delete or prolong a later holder's
 * lock;</li>
 * <li>a lock whose time-to-live passed is free to be acquired again;</li>
 * <li>a failed acquisition changes nothing, not even the holder's time-to-live;</li>
 * <li>no application server's wall clock decides when a lock expires: the store counts
 * the time-to-live itself, or a contender does, on its monotonic clock, by watching the
 * holder's record stay unchanged for the whole time-to-live ({@link ObservedExpiry}), in
 * which case a lock is free to a contender one time-to-live after it first saw the
 * holder's last write, and to the JVM that wrote it one time-to-live after the write was
 * sent.</li>
 * </ul>
 * Keys arrive already prefixed and at most 250 bytes of UTF-8 long. Tokens are opaque
 * URL-safe strings.
 * <p>
 * Failures to reach the store are raised as {@link LockStoreException}; a store never
 * reports an unknown outcome as success.
 * <p>
 * Optional abilities are separate interfaces: {@link ReleaseNotifyingLockStore} for
 * stores that announce releases, so that waiters need not poll, and
 * {@link ReleaseHandoffLockStore} for those that can also acquire for a waiter from the
 * announcement; {@link MultiKeyLockStore} for stores that take the locks of several keys
 * at once, all or none. A store that issues fencing tokens returns them from
 * {@link #tryAcquire} through {@link AcquireReply#fencingToken()}.
 *
 * @since 0.1.0
 */
public interface LockStore {

	/**
	 * Acquire the lock on {@code key} for {@code token} if no one holds it.
	 * @param key the full store key
	 * @param token the new owner's token, unique to this acquisition
	 * @param ttl the lock's time-to-live, positive
	 * @return whether the lock was acquired, and if not, the holder's remaining
	 * time-to-live
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	AcquireReply tryAcquire(String key, String token, Duration ttl);

	/**
	 * Delete the lock on {@code key} if it is held by {@code token}.
	 * @param key the full store key
	 * @param token the owner token given to {@link #tryAcquire}
	 * @return {@code true} if the lock was held by {@code token} and is now deleted;
	 * {@code false} if it had expired or belongs to another owner (left untouched)
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	boolean release(String key, String token);

	/**
	 * Reset the time-to-live of the lock on {@code key} to {@code ttl} if it is held by
	 * {@code token}.
	 * @param key the full store key
	 * @param token the owner token given to {@link #tryAcquire}
	 * @param ttl the new time-to-live, counted from now, positive
	 * @return {@code true} if the lock was held by {@code token} and is extended;
	 * {@code false} if it had expired or belongs to another owner (left untouched)
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	boolean extend(String key, String token, Duration ttl);

	/**
	 * Extend several locks at once, each only if held by its token. Stores that can do it
	 * in one round trip override this; by default it calls {@link #extend} for each lock.
	 * @param keys the full store keys
	 * @param tokens the owner tokens, in the order of the keys
	 * @param ttl the new time-to-live of every lock, counted from now, positive
	 * @return for each key, in order, whether its lock was held by its token and is
	 * extended
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	default boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl) {
		boolean[] extended = new boolean[keys.size()];
		for (int i = 0; i < extended.length; i++) {
			extended[i] = extend(keys.get(i), tokens.get(i), ttl);
		}
		return extended;
	}

	/**
	 * Return how long the lock on {@code key} is still held, whoever holds it; this reads
	 * the lock and never changes it. It serves status queries that must not reveal or
	 * need the owner token, such as those of a lock service.
	 * @param key the full store key
	 * @return the holder's remaining time-to-live, or {@link Duration#ZERO} if no one
	 * holds the lock
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	Duration timeToExpiry(String key);

}
