package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import dev.lockstarter.test.fault.BlockedTime;

import static org.awaitility.Awaitility.await;

/**
 * Whether a live holder renews its lock, read so that a busy machine cannot hide a
 * renewal; how long its lock kept others out once it was killed is
 * {@link BlockedTime#since}'s.
 */
final class KilledHolderExpiry {

	private KilledHolderExpiry() {
	}

	/**
	 * Wait until a live holder has renewed its lock a number of times: the lock's expiry,
	 * read every 20 ms, moved forward. Each reading bounds the expiry between two
	 * instants, and a renewal is counted only when a reading's earliest expiry is past
	 * the previous one's latest: a holder that does not renew is never taken for one that
	 * does, however late the readings come on a busy machine, and a late renewal or a
	 * late reading only makes the wait longer.
	 * @param expiry reads the lock's expiry
	 * @param renewals how many renewals to see
	 * @param atMost how long to wait for them
	 */
	static void awaitRenewals(Supplier<Expiry> expiry, int renewals, Duration atMost) {
		AtomicReference<Expiry> previous = new AtomicReference<>(expiry.get());
		AtomicInteger seen = new AtomicInteger();
		await("renewals of the live holder's lock").atMost(atMost)
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(20))
			.until(() -> {
				Expiry read = expiry.get();
				if (read.earliest() > previous.getAndSet(read).latest()) {
					seen.incrementAndGet();
				}
				return seen.get() >= renewals;
			});
	}

	/**
	 * When a lock expires, in milliseconds on one clock, as a reading bounds it.
	 *
	 * @param earliest the earliest it may expire
	 * @param latest the latest it may expire
	 */
	record Expiry(long earliest, long latest) {

		/**
		 * An expiry that the store gives as an instant on its clock.
		 * @param at the instant, in milliseconds
		 * @return the expiry
		 */
		static Expiry at(long at) {
			return new Expiry(at, at);
		}

		/**
		 * An expiry that the store gives as the time left ({@code PTTL}): between the
		 * reading's sending plus the time left and its answer plus the time left (and the
		 * millisecond that {@code PTTL} truncates), on the test's monotonic clock.
		 * @param remainingMillis reads the time left, in milliseconds
		 * @return the expiry
		 */
		static Expiry remaining(LongSupplier remainingMillis) {
			return remaining(remainingMillis, () -> System.nanoTime() / 1_000_000);
		}

		static Expiry remaining(LongSupplier remainingMillis, LongSupplier nowMillis) {
			long sent = nowMillis.getAsLong();
			long remaining = remainingMillis.getAsLong();
			long answered = nowMillis.getAsLong();
			return new Expiry(sent + remaining, answered + remaining + 1);
		}

	}

}
