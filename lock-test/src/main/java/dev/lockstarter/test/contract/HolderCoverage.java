package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What a holder's confirmed writes prove about its lock, on the test's monotonic clock: a
 * write (the acquisition or a renewal) sent at {@code s} and confirmed at {@code c} was
 * applied by the store somewhere between the two, so the lock is the holder's at least
 * from {@code c} until {@code s + ttl}, whatever the clocks of the machines. A contender
 * that gets in during such a window breaks the lock; one that gets in after the holder
 * stalled (a paused JVM, a starved thread) past every window does not.
 */
final class HolderCoverage {

	private final long ttlNanos;

	private final List<long[]> windows = new ArrayList<>();

	HolderCoverage(Duration ttl) {
		this.ttlNanos = ttl.toNanos();
	}

	/**
	 * Record a write of the holder that the store confirmed.
	 * @param sentNanos when it was sent, in {@link System#nanoTime()}
	 * @param confirmedNanos when its confirmation arrived
	 */
	synchronized void confirmed(long sentNanos, long confirmedNanos) {
		this.windows.add(new long[] { confirmedNanos, sentNanos + this.ttlNanos });
	}

	/**
	 * Return whether one window holds the whole of a call made from {@code fromNanos} to
	 * {@code toNanos}: then the store acted on it while the lock was the holder's.
	 */
	synchronized boolean covers(long fromNanos, long toNanos) {
		return this.windows.stream().anyMatch((window) -> window[0] <= fromNanos && toNanos < window[1]);
	}

	/**
	 * Return how far the windows, chained without a gap from the first one, reach; a
	 * reach before the end of a contention means the holder stalled past its time-to-live
	 * at some point, and the contention proved nothing after that.
	 */
	synchronized long reach() {
		List<long[]> sorted = new ArrayList<>(this.windows);
		sorted.sort(Comparator.comparingLong((long[] window) -> window[0]));
		long reach = Long.MIN_VALUE;
		for (long[] window : sorted) {
			if (reach != Long.MIN_VALUE && window[0] > reach) {
				break;
			}
			reach = Math.max(reach, window[1]);
		}
		return reach;
	}

}
