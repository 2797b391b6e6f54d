package dev.lockstarter.store;

import java.time.Duration;
import java.util.Arrays;

/**
 * The answer of {@link MultiKeyLockStore#tryAcquireAll}: every key acquired, each with
 * its fencing token, or none, with the first key found held and its holder's remaining
 * time-to-live.
 *
 * @since 0.1.0
 */
public final class MultiKeyAcquireReply {

	private final long[] fencingTokens;

	private final int heldIndex;

	private final Duration holderRemainingTtl;

	private MultiKeyAcquireReply(long[] fencingTokens, int heldIndex, Duration holderRemainingTtl) {
		this.fencingTokens = fencingTokens;
		this.heldIndex = heldIndex;
		this.holderRemainingTtl = holderRemainingTtl.isNegative() ? Duration.ZERO : holderRemainingTtl;
	}

	/**
	 * Return the result for a set of keys that were all acquired.
	 * @param fencingTokens the fencing token of each key, in the order of the keys;
	 * {@link AcquireReply#NO_FENCING_TOKEN} for a store that issues none
	 * @return a new result
	 */
	public static MultiKeyAcquireReply acquired(long... fencingTokens) {
		if (fencingTokens.length == 0) {
			throw new IllegalArgumentException("'fencingTokens' must not be empty");
		}
		return new MultiKeyAcquireReply(fencingTokens.clone(), -1, Duration.ZERO);
	}

	/**
	 * Return the result for a set of keys of which one was held by another owner, so that
	 * none was acquired.
	 * @param heldIndex the index of the held key among the keys, not negative
	 * @param remainingTtl the holder's remaining time-to-live; a negative value means
	 * unknown
	 * @return a new result
	 */
	public static MultiKeyAcquireReply held(int heldIndex, Duration remainingTtl) {
		if (heldIndex < 0) {
			throw new IllegalArgumentException("'heldIndex' must not be negative, was " + heldIndex);
		}
		return new MultiKeyAcquireReply(new long[0], heldIndex, remainingTtl);
	}

	/**
	 * Return whether the caller now owns the locks on every key.
	 * @return {@code true} if acquired
	 */
	public boolean isAcquired() {
		return this.heldIndex < 0;
	}

	/**
	 * Return the fencing token of each acquired key, in the order of the keys: each is
	 * greater than every token issued before for the same key.
	 * @return a copy of the tokens; empty if not acquired
	 */
	public long[] fencingTokens() {
		return this.fencingTokens.clone();
	}

	/**
	 * Return the index of the key found held by another owner.
	 * @return the index among the keys, or {@code -1} if acquired
	 */
	public int heldIndex() {
		return this.heldIndex;
	}

	/**
	 * Return the remaining time-to-live of the other owner's lock on the held key.
	 * @return the remaining time; {@link Duration#ZERO} when acquired or unknown
	 */
	public Duration holderRemainingTtl() {
		return this.holderRemainingTtl;
	}

	@Override
	public String toString() {
		return isAcquired()
				? "MultiKeyAcquireReply[acquired, fencing tokens " + Arrays.toString(this.fencingTokens) + "]"
				: "MultiKeyAcquireReply[key " + this.heldIndex + " held for " + this.holderRemainingTtl + "]";
	}

}
