package dev.lockstarter.core;

import org.jspecify.annotations.Nullable;

/**
 * The leases of the thread that holds a {@link LeaseLock}, each with the hold count at
 * which it was taken: only the unlock that brings the hold count back below that depth
 * releases it, so a hold the thread never gives back cannot keep a lease taken above it.
 * <p>
 * A thread takes its first lease with its first hold; a re-entry extends the newest
 * lease. The first re-entry that finds that lease lost marks the loss reported (and
 * fails); an acquisition after that, while the thread still holds the lock, takes a new
 * lease at its own depth. Read and written only by the thread that holds the lock's local
 * lock.
 */
final class HeldLeases {

	/** The newest lease taken, linked to the ones taken before it. */
	private @Nullable Taken newest;

	/**
	 * Return the newest lease, unless a re-entry already found it lost.
	 * @return the lease a re-entry extends, or {@code null} if a re-entry must take a new
	 * one
	 */
	@Nullable Lease extendable() {
		Taken newest = this.newest;
		return (newest != null && !newest.lossReported) ? newest.lease : null;
	}

	/**
	 * Return the newest lease, found lost or not.
	 * @return the lease, or {@code null} if the thread has none
	 */
	@Nullable Lease newest() {
		Taken newest = this.newest;
		return (newest != null) ? newest.lease : null;
	}

	/**
	 * Mark the newest lease found lost by a re-entry.
	 */
	void reportLoss() {
		Taken newest = this.newest;
		if (newest != null) {
			newest.lossReported = true;
		}
	}

	/**
	 * Record a lease taken at a hold count.
	 * @param depth the hold count that the acquisition reached
	 * @param lease the lease
	 */
	void add(int depth, Lease lease) {
		this.newest = new Taken(depth, lease, this.newest);
	}

	/**
	 * Remove the lease taken at a hold count, if one was.
	 * @param depth the hold count that the unlock ends
	 * @return the lease to release, or {@code null} if none was taken at that depth
	 */
	@Nullable Lease removeTakenAt(int depth) {
		Taken newest = this.newest;
		if (newest == null || newest.depth != depth) {
			return null;
		}
		this.newest = newest.before;
		return newest.lease;
	}

	private static final class Taken {

		private final int depth;

		private final Lease lease;

		private final @Nullable Taken before;

		private boolean lossReported;

		private Taken(int depth, Lease lease, @Nullable Taken before) {
			this.depth = depth;
			this.lease = lease;
			this.before = before;
		}

	}

}
