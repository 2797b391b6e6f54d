package dev.lockstarter.core;

import java.time.Duration;

import dev.lockstarter.store.LockException;

/**
 * Thrown when the store granted a lock but confirmed it only after the lock's
 * time-to-live (less the loss margin) had run out: the store answered, but later than the
 * lock could live. No lease is made of such a grant, the guarded work does not run, and
 * the lock is released by its token in the background.
 * <p>
 * It is not a store failure: the store answered, and a time-to-live longer than its
 * answers, or a less busy store, gives a lock. It is counted with the outcome
 * {@code ttl-too-short}, never {@code store-error}. In a web application it becomes a
 * {@code 503 Service Unavailable} problem response of its own type, since a retry may
 * find the store quicker.
 *
 * @since 0.1.0
 */
public class LockTtlTooShortException extends LockException {

	private final Duration ttl;

	private final Duration answeredAfter;

	/**
	 * Create a new instance.
	 * @param lockName the name of the lock
	 * @param ttl the lock's time-to-live
	 * @param answeredAfter how long after the granting try was sent the store confirmed
	 * it
	 */
	public LockTtlTooShortException(String lockName, Duration ttl, Duration answeredAfter) {
		super(lockName, "Lock store confirmed lock '" + lockName + "' " + answeredAfter.toMillis()
				+ " ms after it was asked, past its time-to-live of " + ttl.toMillis()
				+ " ms less the loss margin: the time-to-live is shorter than the store takes to answer; the lock "
				+ "was not used and is released");
		this.ttl = ttl;
		this.answeredAfter = answeredAfter;
	}

	/**
	 * Return the time-to-live that the lock was asked for.
	 * @return the time-to-live
	 */
	public Duration getTtl() {
		return this.ttl;
	}

	/**
	 * Return how long after the granting try was sent the store confirmed it: the round
	 * trip that outlasted the time-to-live.
	 * @return the time the store took to answer
	 */
	public Duration getAnsweredAfter() {
		return this.answeredAfter;
	}

}
