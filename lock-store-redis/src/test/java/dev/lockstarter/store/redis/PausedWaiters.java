package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

import static org.awaitility.Awaitility.await;

/**
 * Blocking waiters seen from the test: a waiter whose try found the lock held pauses
 * until its next poll parked on the semaphore that release notifications wake.
 */
final class PausedWaiters {

	private PausedWaiters() {
	}

	/**
	 * Wait until each of {@code waiters}, threads waiting for a lock, has been seen
	 * pausing between its tries: its try has ended, and only a release or its next poll
	 * wakes it.
	 * @param waiters the threads of the waiters
	 * @param within how long to wait at most
	 */
	static void awaitPaused(Collection<Thread> waiters, Duration within) {
		Set<Thread> paused = ConcurrentHashMap.newKeySet();
		await(waiters.size() + " waiter(s) pausing between their tries").atMost(within)
			.pollInterval(Duration.ofMillis(2))
			.until(() -> {
				waiters.stream().filter(PausedWaiters::isPaused).forEach(paused::add);
				return paused.size() == waiters.size();
			});
	}

	private static boolean isPaused(Thread waiter) {
		return Arrays.stream(waiter.getStackTrace())
			.anyMatch((frame) -> frame.getClassName().equals(Semaphore.class.getName()));
	}

}
