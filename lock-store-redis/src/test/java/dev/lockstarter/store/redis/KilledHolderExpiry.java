package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import static org.awaitility.Awaitility.await;

/**
 * How long a killed holder's lock kept others out, measured so that a busy machine cannot
 * lengthen it: up to the start of the last attempt that was refused. An attempt that
 * reaches the store after the lock expired is granted, however late its answer comes
 * back, so the last refused one started while the lock was still there; a slow answer or
 * a late poll delays only the granted attempt, which is not counted.
 */
final class KilledHolderExpiry {

	private KilledHolderExpiry() {
	}

	/**
	 * Try until an attempt is granted.
	 * @param killedAt when the holder was seen dead ({@link System#nanoTime()})
	 * @param attempt one attempt to take the lock; whether it was granted
	 * @param atMost how long to try before failing
	 * @return from {@code killedAt} to the start of the last refused attempt (zero if the
	 * first was granted)
	 */
	static Duration blockedFor(long killedAt, BooleanSupplier attempt, Duration atMost) {
		AtomicLong lastRefused = new AtomicLong(killedAt);
		await("a grant after the holder's death").atMost(atMost)
			.pollInSameThread()
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(10))
			.until(() -> {
				long started = System.nanoTime();
				if (attempt.getAsBoolean()) {
					return true;
				}
				lastRefused.set(started);
				return false;
			});
		return Duration.ofNanos(lastRefused.get() - killedAt);
	}

	/**
	 * Wait until a live holder has renewed its lock a number of times: the lock's expiry,
	 * read every 20 ms, moved forward. A holder renews late on a busy machine, which does
	 * not fail this wait; it fails when the holder does not renew.
	 * @param expiryMillis the lock's expiry in the store, or its remaining time, in
	 * milliseconds: a value that grows only when the lock is renewed
	 * @param renewals how many renewals to see
	 * @param atMost how long to wait for them
	 */
	static void awaitRenewals(LongSupplier expiryMillis, int renewals, Duration atMost) {
		AtomicLong previous = new AtomicLong(expiryMillis.getAsLong());
		AtomicInteger seen = new AtomicInteger();
		await("renewals of the live holder's lock").atMost(atMost)
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(20))
			.until(() -> {
				long expiry = expiryMillis.getAsLong();
				if (expiry > previous.getAndSet(expiry) + 20) {
					seen.incrementAndGet();
				}
				return seen.get() >= renewals;
			});
	}

}
