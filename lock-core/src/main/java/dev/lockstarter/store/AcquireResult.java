package dev.lockstarter.store;

import java.time.Duration;

/**
 * The answer of {@link LockStore#tryAcquire}: acquired, or held by another owner for a given
 * remaining time.
 *
 * @since 0.1.0
 */
public final class AcquireResult {

	private static final AcquireResult ACQUIRED = new AcquireResult(true, Duration.ZERO);

	private final boolean acquired;

	private final Duration holderRemainingTtl;

	private AcquireResult(boolean acquired, Duration holderRemainingTtl) {
		this.acquired = acquired;
		this.holderRemainingTtl = holderRemainingTtl.isNegative() ? Duration.ZERO : holderRemainingTtl;
	}

	/**
	 * Return the result for an acquired lock.
	 * @return the shared instance
	 */
	public static AcquireResult acquired() {
		return ACQUIRED;
	}

	/**
	 * Return the result for a lock held by another owner.
	 * @param remainingTtl the holder's remaining time-to-live; a negative value means unknown
	 * @return a new result
	 */
	public static AcquireResult held(Duration remainingTtl) {
		return new AcquireResult(false, remainingTtl);
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

	@Override
	public String toString() {
		return this.acquired ? "AcquireResult[acquired]" : "AcquireResult[held for " + this.holderRemainingTtl + "]";
	}

}
