package dev.lockstarter.reliability;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockingTaskExecutor.TaskResult;
import org.jspecify.annotations.Nullable;

/**
 * A ShedLock provider used through its {@link LockingTaskExecutor}, which runs the
 * section itself once it holds the lock, with {@code lockAtMostFor} the time-to-live and
 * {@code lockAtLeastFor} zero. ShedLock does not wait (a locked task is skipped): the
 * task is tried again every 5 ms, for at most twice the time-to-live.
 * <p>
 * ShedLock has no means to ask whether a lock is still held; its promise is that the lock
 * lasts at most {@code lockAtMostFor} (its README warns that a task that runs longer may
 * run on several nodes at once). So {@link WorkerLock.Holding#isHeld()} answers whether
 * less than {@code lockAtMostFor} has passed ({@link System#nanoTime()}) since just
 * before the call that ran the section, which is never later than the lock's creation.
 * Fencing token 0.
 */
final class ShedLockWorkerLock implements WorkerLock {

	private static final String NAME_PREFIX = "lock:";

	private final Supplier<LockingTaskExecutor> executors;

	private final Duration lockAtMostFor;

	private final AutoCloseable resources;

	/**
	 * Use a provider's executor.
	 * @param executors gives the calling thread's executor: the same for every thread, or
	 * one per thread for a provider that knows its node by a value of its own
	 * @param lockAtMostFor the time-to-live
	 * @param resources what to close with the lock
	 */
	ShedLockWorkerLock(Supplier<LockingTaskExecutor> executors, Duration lockAtMostFor, AutoCloseable resources) {
		this.executors = executors;
		this.lockAtMostFor = lockAtMostFor;
		this.resources = resources;
	}

	@Override
	public boolean runLocked(String key, Section section) throws InterruptedException {
		String name = NAME_PREFIX + key;
		return WorkerLock.poll(this.lockAtMostFor.multipliedBy(2), () -> attempt(name, section)) != null;
	}

	/**
	 * One call of the executor: {@code TRUE} if it ran the section, {@code null} if the
	 * lock is taken.
	 */
	private @Nullable Boolean attempt(String name, Section section) throws InterruptedException {
		Deadline holding = new Deadline(System.nanoTime(), this.lockAtMostFor);
		LockConfiguration configuration = new LockConfiguration(Instant.now(), name, this.lockAtMostFor, Duration.ZERO);
		boolean[] sectionReturned = new boolean[1];
		try {
			TaskResult<Boolean> result = this.executors.get().executeWithLock(() -> {
				section.run(holding);
				sectionReturned[0] = true;
				return Boolean.TRUE;
			}, configuration);
			return result.wasExecuted() ? Boolean.TRUE : null;
		}
		catch (RuntimeException ex) {
			if (sectionReturned[0]) {
				// The unlock failed after the section: the lock expires anyway
				return Boolean.TRUE;
			}
			throw ex;
		}
		catch (InterruptedException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			// The section throws nothing else, and neither does the provider
			throw new UndeclaredThrowableException(ex);
		}
	}

	@Override
	public void close() throws Exception {
		this.resources.close();
	}

	/**
	 * ShedLock's promise: held for {@code lockAtMostFor} from the acquisition.
	 */
	private record Deadline(long attemptedAt, Duration lockAtMostFor) implements WorkerLock.Holding {

		@Override
		public long fencingToken() {
			return 0;
		}

		@Override
		public boolean isHeld() {
			return System.nanoTime() - this.attemptedAt < this.lockAtMostFor.toNanos();
		}

	}

}
