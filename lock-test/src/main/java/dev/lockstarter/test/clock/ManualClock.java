package dev.lockstarter.test.clock;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import dev.lockstarter.store.ObservedExpiry;

/**
 * A monotonic clock for store tests, in nanoseconds as {@link System#nanoTime()}, moved
 * by hand, whose time may be shared by several stores (each counting with its own
 * {@link ObservedExpiry}, as separate JVMs would), and which can run an action at its
 * n-th reading. A store that counts by observed silence reads its clock between reading a
 * lock's record and writing it (when it judges the holder's record, and when it takes the
 * time it sends a write), and before it writes as a holder (when it checks its own lock's
 * time-to-live), so a test can change the record exactly there.
 */
public final class ManualClock implements LongSupplier {

	private final AtomicLong now;

	private final AtomicInteger readings = new AtomicInteger();

	private final int hookAt;

	private final Runnable hook;

	private ManualClock(AtomicLong now, int hookAt, Runnable hook) {
		this.now = now;
		this.hookAt = hookAt;
		this.hook = hook;
	}

	/**
	 * A clock at an arbitrary origin, as every JVM's monotonic clock is.
	 * @return the clock
	 */
	public static ManualClock start() {
		return new ManualClock(new AtomicLong(System.nanoTime()), -1, () -> {
		});
	}

	/**
	 * A clock sharing this one's time, which runs {@code hook} at its {@code reading}-th
	 * reading (from 1), before answering it.
	 * @param reading the reading that runs the hook
	 * @param hook the action
	 * @return the clock
	 */
	public ManualClock hookedAt(int reading, Runnable hook) {
		return new ManualClock(this.now, reading, hook);
	}

	/**
	 * A record of sightings counting on this clock, for one store: a JVM of its own.
	 * @return the record
	 */
	public ObservedExpiry expiry() {
		return new ObservedExpiry(this, ObservedExpiry.DEFAULT_MAX_ENTRIES);
	}

	/**
	 * Move the clock on, for every clock sharing its time.
	 * @param duration how far
	 */
	public void advance(Duration duration) {
		this.now.addAndGet(duration.toNanos());
	}

	@Override
	public long getAsLong() {
		if (this.readings.incrementAndGet() == this.hookAt) {
			this.hook.run();
		}
		return this.now.get();
	}

}
