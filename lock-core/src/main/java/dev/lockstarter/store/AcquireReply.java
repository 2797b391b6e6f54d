package dev.lockstarter.store;

import java.time.Duration;

/**
 * The answer of {@link LockStore#tryAcquire}: acquired, or held by another owner for a
 * given remaining time.
 *
 * @since 0.1.0
 */
public final class AcquireReply {

	/** The fencing token of a store that issues none. */
	public static final long NO_FENCING_TOKEN = 0;

	private static final AcquireReply ACQUIRED = new AcquireReply(true, Duration.ZERO, NO_FENCING_TOKEN);

	private final boolean acquired;

	private final Duration holderRemainingTtl;

	private final long fencingToken;

	private AcquireReply(boolean acquired, Duration holderRemainingTtl, long fencingToken) {
		this.acquired = acquired;
		this.holderRemainingTtl = holderRemainingTtl.isNegative() ? Duration.ZERO : holderRemainingTtl;
		this.fencingToken = fencingToken;
	}

	/**
	 * Return the result for an acquired lock, from a store that issues no fencing tokens.
	 * @return the shared instance
	 */
	public static AcquireReply acquired() {
		return ACQUIRED;
	}

	/**
	 * Return the result for an acquired lock with its fencing token.
	 * @param fencingToken the token, positive, greater than every token issued before for
	 * the same key
	 * @return a new result
	 */
	public static AcquireReply acquired(long fencingToken) {
		if (fencingToken <= 0) {
			throw new IllegalArgumentException("'fencingToken' must be positive, was " + fencingToken);
		}
		return new AcquireReply(true, Duration.ZERO, fencingToken);
	}

	/**
	 * Return the result for a lock held by another owner.
	 * @param remainingTtl the holder's remaining time-to-live; a negative value means
	 * unknown
	 * @return a new result
	 */
	public static AcquireReply held(Duration remainingTtl) {
		return new AcquireReply(false, remainingTtl, NO_FENCING_TOKEN);
	}

	/**
	 * Return whether the caller now owns the lock.
	 * @return {@code true} if acquired
	 */
	public boolean isAcquired() {
		return this.acquired;
	}

	/**
	 * Return the remaining time-to-live of the other owner's lock.
	 * @return the remaining time; {@link Duration#ZERO} when acquired or unknown
	 */
	public Duration holderRemainingTtl() {
		return this.holderRemainingTtl;
	}

	/**
	 * Return the fencing token of an acquired lock: a number that strictly increases with
	 * every acquisition of the same key, for a protected resource to reject writes from
	 * an older holder.
	 * @return the token, or {@link #NO_FENCING_TOKEN} if the store issues none or the
	 * lock was not acquired
	 */
	public long fencingToken() {
		return this.fencingToken;
	}

	@Override
	public String toString() {
		return this.acquired ? "AcquireReply[acquired]" : "AcquireReply[held for " + this.holderRemainingTtl + "]";
	}

}
