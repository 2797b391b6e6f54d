package dev.lockstarter.store;

import java.time.Duration;
import java.util.List;

/**
 * A {@link LockStore} that acquires and releases the locks of several keys as one
 * operation: all of them or none, usually in one round trip.
 * <p>
 * Without this ability, {@link dev.lockstarter.core.LockTemplate} takes the keys of a
 * multi-key lock one by one, in the same order, and releases those it took when a later
 * one is held. A store implements this interface when it can do better:
 * <ul>
 * <li>atomically, so that no other caller ever sees part of the set held (the in-memory
 * store; Redis when every key is in one hash slot, always so on one server or
 * Sentinel);</li>
 * <li>or at least in fewer round trips, taking the keys in the given order and rolling
 * back itself (Redis Cluster across slots). Another caller may then see part of the set
 * held while the call runs, which only makes that caller's own attempt conflict; no key
 * ever has two holders.</li>
 * </ul>
 * Either way, when {@link #tryAcquireAll} returns, every key is held by the token or none
 * is. When it throws, the outcome is unknown, and the caller releases every key by its
 * token.
 * <p>
 * Keys are given distinct and in ascending {@link String#compareTo natural order}, the
 * global order in which every caller takes them, so that callers contending for
 * overlapping sets conflict on their first common key instead of each holding part of
 * what the other needs.
 *
 * @since 0.1.0
 */
public interface MultiKeyLockStore extends LockStore {

	/**
	 * Acquire the locks on all {@code keys} for {@code token}, or none of them.
	 * @param keys the full store keys, distinct, in ascending order, at least one
	 * @param token the new owner's token, unique to this acquisition, the same for every
	 * key
	 * @param ttl the time-to-live of every lock, positive
	 * @return the acquisition with a fencing token for each key, or the first key found
	 * held and its holder's remaining time-to-live; when not acquired, no key is held by
	 * {@code token} and no holder's time-to-live has changed
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time; any key may then be held by {@code token}
	 */
	MultiKeyAcquireReply tryAcquireAll(List<String> keys, String token, Duration ttl);

	/**
	 * Delete each lock on {@code keys} that is held by {@code token}, leaving the others
	 * untouched.
	 * @param keys the full store keys
	 * @param token the owner token given to {@link #tryAcquireAll}
	 * @return for each key, in order, whether its lock was held by {@code token} and is
	 * now deleted
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	boolean[] releaseAll(List<String> keys, String token);

}
