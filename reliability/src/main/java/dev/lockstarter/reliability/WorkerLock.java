package dev.lockstarter.reliability;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A lock as a {@link Worker} uses it: this starter's, a broken one, or a peer library's
 * ({@link PeerLock}), each behind the same critical section, so that the checker judges
 * them all by the same record.
 */
interface WorkerLock extends AutoCloseable {

	/**
	 * Take the lock on a key, waiting for it at most twice the time-to-live, run the
	 * section while holding it, then release it.
	 * @param key the key of the workload, such as {@code k0}
	 * @param section the critical section
	 * @return whether the section ran; {@code false} when the lock was not acquired in
	 * time
	 * @throws InterruptedException if interrupted while waiting or inside the section
	 */
	boolean runLocked(String key, Section section) throws InterruptedException;

	/**
	 * A lock that is taken, held by a {@link Held}, then released: every lock but one
	 * that runs the section itself, as ShedLock's executor does.
	 * @param acquirer takes the lock
	 * @param resources what to close with the lock: clients, connections
	 * @return the lock
	 */
	static WorkerLock acquiring(Acquirer acquirer, AutoCloseable resources) {
		return new WorkerLock() {

			@Override
			public boolean runLocked(String key, Section section) throws InterruptedException {
				Held held = acquirer.acquire(key);
				if (held == null) {
					return false;
				}
				try {
					section.run(held);
				}
				finally {
					held.release();
				}
				return true;
			}

			@Override
			public void close() throws Exception {
				resources.close();
			}

		};
	}

	/**
	 * The body of a critical section.
	 */
	@FunctionalInterface
	interface Section {

		/**
		 * Run the section.
		 * @param holding what the lock tells of itself while held
		 * @throws InterruptedException if interrupted
		 */
		void run(Holding holding) throws InterruptedException;

	}

	/**
	 * What the section asks of the lock it holds.
	 */
	interface Holding {

		/**
		 * The fencing token of this acquisition, or 0 if the lock issues none.
		 * @return the token
		 */
		long fencingToken();

		/**
		 * Whether the lock, by its library's own means, says that it was held all along,
		 * asked once, after the section's exit is recorded: a lease's validity, a query
		 * of the store, an unlock that did not fail (which then releases the lock), or a
		 * deadline the library promises. A lock with no such means answers from the
		 * promise it makes.
		 * @return whether the section ran while the lock was held as promised
		 */
		boolean isHeld();

	}

	/**
	 * A lock that tells of its loss as it happens, before its section exits: this
	 * starter's lease. A section whose worker is killed inside cannot ask its lock at the
	 * exit; with this, the loss its lock told before the kill is on record.
	 */
	interface LossReporting {

		/**
		 * Run an action once the lock is found lost (at once if it already was), on the
		 * thread that finds it; never after a release.
		 * @param action what to run
		 */
		void whenLost(Runnable action);

	}

	/**
	 * A lock that, once lost, can tell whether the promise it made to its holder still
	 * ran: this starter's detached lease, whose holder is promised the lock until the
	 * time-to-live, less the loss margin, after its last confirmed acquisition or renewal
	 * was sent. A lock that the store refused while that promise ran was taken from a
	 * holder that kept its side of it, so that the loss does not excuse an overlap that
	 * began before it.
	 */
	interface PromiseReporting {

		/**
		 * Whether the promise made at the last confirmed acquisition or renewal still
		 * runs, whatever the store answered since.
		 * @return {@code true} before that promise's deadline
		 */
		boolean isWithinPromise();

	}

	/**
	 * A lock taken, to be released once.
	 */
	interface Held extends Holding {

		/**
		 * Release the lock, unless {@link #isHeld()} already did. Must not throw.
		 */
		void release();

	}

	/**
	 * Takes a lock.
	 */
	@FunctionalInterface
	interface Acquirer {

		/**
		 * Take the lock on a key, waiting at most twice the time-to-live.
		 * @param key the key of the workload
		 * @return the lock held, or {@code null} if it was not acquired in time
		 * @throws InterruptedException if interrupted while waiting
		 */
		@Nullable Held acquire(String key) throws InterruptedException;

	}

	/**
	 * Poll a lock that does not wait by itself every 5 ms, for at most a wait.
	 * @param wait the longest to wait
	 * @param attempt one attempt, {@code null} if the lock is taken
	 * @param <T> what an attempt gives
	 * @return what the first successful attempt gave, or {@code null}
	 * @throws InterruptedException if interrupted while waiting
	 */
	static <T> @Nullable T poll(Duration wait, Attempt<T> attempt) throws InterruptedException {
		return poll(wait, Duration.ofMillis(5), attempt);
	}

	/**
	 * Poll a lock that does not wait by itself, for at most a wait.
	 * @param wait the longest to wait
	 * @param every how long to sleep between attempts
	 * @param attempt one attempt, {@code null} if the lock is taken
	 * @param <T> what an attempt gives
	 * @return what the first successful attempt gave, or {@code null}
	 * @throws InterruptedException if interrupted while waiting
	 */
	static <T> @Nullable T poll(Duration wait, Duration every, Attempt<T> attempt) throws InterruptedException {
		long deadline = System.nanoTime() + wait.toNanos();
		while (true) {
			T result = attempt.attempt();
			if (result != null) {
				return result;
			}
			if (System.nanoTime() - deadline > 0) {
				return null;
			}
			Thread.sleep(every.toMillis());
		}
	}

	/**
	 * One attempt of {@link #poll}.
	 *
	 * @param <T> what it gives
	 */
	@FunctionalInterface
	interface Attempt<T> {

		@Nullable T attempt() throws InterruptedException;

	}

}
