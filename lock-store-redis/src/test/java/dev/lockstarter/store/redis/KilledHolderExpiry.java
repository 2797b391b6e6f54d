package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

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

}
