package dev.lockstarter.core;

import java.time.Duration;

import dev.lockstarter.store.LockStoreException;

/**
 * Locks held for owners outside this JVM, such as the clients of a lock service: each is
 * a {@link DetachedLease}, owned by whoever has its owner token, and extended and
 * released by key and token from any instance that shares the store. Implemented by
 * {@link LockTemplate}, whose locks on the same keys they exclude.
 *
 * @since 0.1.0
 */
public interface DetachedLockOperations {

	/**
	 * Acquire a lock for an owner outside this JVM, waiting as the options say: the lease
	 * is a {@link DetachedLease}, which is neither renewed nor listed among the held
	 * locks. The acquisition is observed and told to the listeners as any other.
	 * @param key the key
	 * @param options the options; renewal, a minimum hold and a maximum hold do not apply
	 * and must not be set
	 * @return the attempt, whose lease is a {@link DetachedLease} when acquired
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	LockAttempt tryAcquireDetached(String key, LockOptions options);

	/**
	 * Reset the time-to-live of a detached lease's lock, if its owner token still holds
	 * it.
	 * @param key the key
	 * @param ownerToken the lease's {@linkplain DetachedLease#ownerToken() owner token}
	 * @param ttl the new time-to-live, counted from now, positive
	 * @return whether the token held the lock, which is now extended; {@code false}
	 * changed nothing
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	boolean extendDetached(String key, String ownerToken, Duration ttl);

	/**
	 * Release a detached lease's lock, if its owner token still holds it; waiters on any
	 * instance are told as for any release.
	 * @param key the key
	 * @param ownerToken the lease's {@linkplain DetachedLease#ownerToken() owner token}
	 * @return whether the token held the lock, which is now released; {@code false}
	 * changed nothing
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	boolean releaseDetached(String key, String ownerToken);

	/**
	 * Return how long the lock on a key is still held, by any owner, without changing it
	 * and without needing or revealing the owner token.
	 * @param key the key
	 * @return the holder's remaining time-to-live, or {@link Duration#ZERO} if the lock
	 * is free
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 * @see dev.lockstarter.store.LockStore#timeToExpiry(String)
	 */
	Duration timeToExpiry(String key);

}
