package dev.lockstarter.store;

import java.util.List;

/**
 * A {@link LockStore} that an operator can look into: it lists the holders of its locks
 * and deletes a lock, whoever holds it or only if the holder listed still does. These
 * calls serve operations (a {@code locks} endpoint, a runbook), never the locking path.
 * <p>
 * Only the locks of {@link #tryAcquire} and of a {@link MultiKeyLockStore} are listed and
 * force-released: not stored results, nor the places of permits and read/write locks.
 *
 * @since 0.1.0
 */
public interface InspectableLockStore extends LockStore {

	/**
	 * List the locks held now whose store key starts with {@code keyPrefix}, in ascending
	 * key order. A store whose locks a contender expires ({@link ObservedExpiry}) lists a
	 * lock until it is released or taken over, even once its time-to-live has passed.
	 * @param keyPrefix the start of the full store keys to list, may be empty
	 * @param limit the most locks to list, positive
	 * @return the holders, at most {@code limit}
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	List<StoredLock> holders(String keyPrefix, int limit);

	/**
	 * Delete the lock on {@code key}, whoever holds it. Its holder finds it lost at its
	 * next renewal or release, and a waiter is told as on a release.
	 * @param key the full store key
	 * @return {@code true} if a lock was held and is now deleted; {@code false} if no one
	 * held it
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	boolean forceRelease(String key);

	/**
	 * Delete the lock on {@code key} only if {@code token} holds it: the holder that an
	 * operator listed ({@link #holders}) is freed, and a lock taken since by another
	 * holder is left alone. Its holder finds it lost at its next renewal or release, and
	 * a waiter is told as on a release. By default, the store's {@link #release} by
	 * token, which is exactly such a delete.
	 * @param key the full store key
	 * @param token the owner token of the listed holder
	 * @return {@code true} if {@code token} held the lock and it is now deleted;
	 * {@code false} if another holder or no one held it, and, as the release answers, for
	 * a lock of {@code token}'s whose time-to-live a store that expires locks by observed
	 * silence has counted out (deleted all the same)
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	default boolean forceRelease(String key, String token) {
		return release(key, token);
	}

}
