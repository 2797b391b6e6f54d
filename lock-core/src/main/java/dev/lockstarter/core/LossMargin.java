package dev.lockstarter.core;

import org.springframework.util.Assert;

/**
 * How long before its time-to-live runs out a lease counts as lost in this JVM: a share
 * of the time-to-live, counted back from the end of the last acquisition or extension
 * that the store confirmed, itself counted from when the command was sent, on the
 * monotonic clock.
 * <p>
 * The margin covers what the holder cannot see: a clock that runs at a different rate
 * from the store's or a contender's, and the time the guarded work takes to stop once it
 * is told. With the default of a tenth, a lease of 30 s is lost locally 27 s after its
 * last confirmed write was sent, whether or not it is renewed and whether or not a
 * renewal has failed yet.
 *
 * @param ratio the share of the time-to-live, above zero and at most a half
 */
record LossMargin(double ratio) {

	/** The default margin: a tenth of the time-to-live. */
	static final LossMargin DEFAULT = new LossMargin(0.1);

	LossMargin {
		Assert.isTrue(ratio > 0 && ratio <= 0.5, () -> "The loss margin must be above 0 and at most 0.5, was " + ratio);
	}

	/**
	 * Return when a lease written with {@code ttlNanos} at {@code sentAt} is lost
	 * locally.
	 * @param sentAt when the write was sent, from {@link System#nanoTime()}
	 * @param ttlNanos the time-to-live written, in nanoseconds
	 * @return the local deadline, from {@link System#nanoTime()}
	 */
	long deadline(long sentAt, long ttlNanos) {
		return sentAt + ttlNanos - (long) (ttlNanos * this.ratio);
	}

}
