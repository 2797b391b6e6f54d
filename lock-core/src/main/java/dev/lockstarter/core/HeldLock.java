package dev.lockstarter.core;

import java.time.Duration;
import java.time.Instant;

/**
 * A lock this instance holds now, as seen by {@link LockListener}s and
 * {@link LockTemplate#getHeldLocks()}: a live view whose age and time to expiry move on.
 *
 * @since 0.1.0
 */
public interface HeldLock {

	/**
	 * Return the lock's name, low-cardinality: the same for every key of one kind of
	 * lock.
	 * @return the name, {@code "unnamed"} when the options set none
	 * @see LockOptions#withName(String)
	 */
	String name();

	/**
	 * Return the lock's key, which may carry user data: keep it out of meters and traces.
	 * @return the key, without the store's prefix
	 */
	String key();

	/**
	 * Return when the lock was acquired, by this instance's clock.
	 * @return the time the acquisition was sent
	 */
	Instant acquiredAt();

	/**
	 * Return how long the lock has been held.
	 * @return the age, never negative
	 */
	Duration age();

	/**
	 * Return the time left before the lock expires unless it is renewed, by this
	 * instance's conservative estimate (counted from when the last acquisition or
	 * extension was sent).
	 * @return the time to expiry, zero when past it
	 */
	Duration timeToExpiry();

	/**
	 * Return the options the lock was acquired with.
	 * @return the options
	 */
	LockOptions options();

}
