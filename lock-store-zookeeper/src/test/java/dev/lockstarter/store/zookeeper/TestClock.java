package dev.lockstarter.store.zookeeper;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A wall clock for the tests, moved by hand, whose time may be shared by several stores
 * (each with its own offset), and which can run an action at its n-th reading: the store
 * reads the clock between reading a node and writing it, which lets a test change the
 * node exactly there.
 */
final class TestClock extends Clock {

	private final AtomicLong now;

	private final long offset;

	private final AtomicInteger readings = new AtomicInteger();

	private final int hookAt;

	private final Runnable hook;

	private TestClock(AtomicLong now, long offset, int hookAt, Runnable hook) {
		this.now = now;
		this.offset = offset;
		this.hookAt = hookAt;
		this.hook = hook;
	}

	/**
	 * A clock at the current system time.
	 * @return the clock
	 */
	static TestClock now() {
		return new TestClock(new AtomicLong(System.currentTimeMillis()), 0, -1, () -> {
		});
	}

	/**
	 * A clock sharing this one's time, ahead of it by {@code ahead}.
	 * @param ahead how far ahead
	 * @return the clock
	 */
	TestClock ahead(Duration ahead) {
		return new TestClock(this.now, this.offset + ahead.toMillis(), -1, () -> {
		});
	}

	/**
	 * A clock sharing this one's time, which runs {@code hook} at its {@code reading}-th
	 * reading (from 1), before answering it.
	 * @param reading the reading that runs the hook
	 * @param hook the action
	 * @return the clock
	 */
	TestClock hookedAt(int reading, Runnable hook) {
		return new TestClock(this.now, this.offset, reading, hook);
	}

	void advance(Duration duration) {
		this.now.addAndGet(duration.toMillis());
	}

	@Override
	public long millis() {
		if (this.readings.incrementAndGet() == this.hookAt) {
			this.hook.run();
		}
		return this.now.get() + this.offset;
	}

	@Override
	public Instant instant() {
		return Instant.ofEpochMilli(millis());
	}

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		throw new UnsupportedOperationException();
	}

}
