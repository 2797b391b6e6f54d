package dev.lockstarter.test.fault;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import dev.lockstarter.core.Internal;

import static org.awaitility.Awaitility.await;

/**
 * How long a dead holder's lock (or a dead writer's recorded wait) kept others out,
 * measured so that a busy machine cannot lengthen it: up to the start of the last attempt
 * that was refused. An attempt that reaches the store after the lock expired is granted,
 * however late its answer comes back, so the last refused one started while the lock was
 * still there; a slow answer or a late poll delays only the granted attempt, which is not
 * counted.
 *
 * @since 0.1.0
 */
@Internal
public final class BlockedTime {

	private BlockedTime() {
	}

	/**
	 * Try until an attempt is granted.
	 * @param diedAt when the holder was seen dead ({@link System#nanoTime()})
	 * @param attempt one attempt to take the lock; whether it was granted
	 * @param atMost how long to try before failing
	 * @return from {@code diedAt} to the start of the last refused attempt (zero if the
	 * first was granted)
	 */
	public static Duration since(long diedAt, BooleanSupplier attempt, Duration atMost) {
		AtomicLong lastRefused = new AtomicLong(diedAt);
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
		return Duration.ofNanos(lastRefused.get() - diedAt);
	}

}
