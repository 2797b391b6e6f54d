package dev.lockstarter.core;

import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.ReleaseNotifyingLockStore;

/**
 * Runs an {@link AcquisitionAttempt} on the calling thread: one try, then, if the options
 * say so, tries on the {@link WaitSchedule}, the thread parked between them on a
 * semaphore that release notifications release. With a {@link ReleaseHandoff}, the waiter
 * does not wake to try after a release: it takes the answer of the listener's try.
 */
final class BlockingWaiter {

	private final LockEvents events;

	BlockingWaiter(LockEvents events) {
		this.events = events;
	}

	/**
	 * Acquire, waiting as the attempt's options say, as one {@code lock.acquire}
	 * observation and one {@link LockListener#acquisitionFinished}.
	 * @param attempt the attempt
	 * @param stopWaiting asked after each wake whether to stop waiting, or {@code null}
	 * @return the caller's attempt
	 * @throws LockWaitInterruptedException if the thread is interrupted while it waits
	 */
	LockAttempt observed(AcquisitionAttempt attempt, @Nullable BooleanSupplier stopWaiting) {
		ObservedAcquisition observed = this.events.startAcquisition(attempt.name(), attempt.description());
		// The first try is sent now too: one clock read instead of two
		attempt.firstSentAt(observed.startedAt());
		try (Observation.Scope scope = observed.openScope()) {
			LockAttempt result = acquire(attempt, stopWaiting);
			observed.finish(attempt.outcomeOf(result), attempt.waited());
			return result;
		}
		catch (RuntimeException ex) {
			observed.fail(ex, attempt.waited());
			throw ex;
		}
	}

	/**
	 * Acquire, waiting as the attempt's options say.
	 * @param attempt the attempt
	 * @param stopWaiting asked after each wake whether to stop waiting, or {@code null}
	 * @return the caller's attempt
	 * @throws LockWaitInterruptedException if the thread is interrupted while it waits
	 */
	private LockAttempt acquire(AcquisitionAttempt attempt, @Nullable BooleanSupplier stopWaiting) {
		if (attempt.tryOnce() || !WaitSchedule.waits(attempt.options())) {
			return attempt.outcome();
		}
		attempt.waiting();
		try {
			return await(attempt, stopWaiting);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockWaitInterruptedException(attempt.description(), ex);
		}
	}

	private LockAttempt await(AcquisitionAttempt attempt, @Nullable BooleanSupplier stopWaiting)
			throws InterruptedException {
		StoreCapabilities store = attempt.store();
		WaitSchedule schedule = WaitSchedule.start(attempt.options(), store.notifiesReleases());
		Semaphore released = new Semaphore(0);
		ReleaseHandoff handoff = null;
		List<ReleaseNotifyingLockStore.Subscription> subscriptions = List.of();
		try {
			boolean acquired = false;
			if (schedule.untilDeadline()) {
				handoff = attempt.handoff(released::release);
				subscriptions = store.subscribe(attempt.storeKeys(), (handoff != null) ? handoff : released::release);
				// Try again first: the holder may have released before the subscription
				// was made
				acquired = tryWaiting(attempt, handoff);
			}
			while (!acquired) {
				long pause = schedule.nextPause(attempt.holderRemainingTtl());
				if (pause < 0) {
					break;
				}
				released.tryAcquire(pause, TimeUnit.NANOSECONDS);
				// Several releases may have been announced meanwhile: one try for all
				released.drainPermits();
				ReleaseHandoff.Answer answer = (handoff != null) ? handoff.take() : null;
				if (answer != null && attempt.take(answer)) {
					break;
				}
				if (stop(attempt, stopWaiting)) {
					break;
				}
				// An answer that found the lock held is this wake's try
				acquired = (answer == null) && tryWaiting(attempt, handoff);
			}
			return attempt.outcome();
		}
		finally {
			subscriptions.forEach(ReleaseNotifyingLockStore.Subscription::close);
			if (handoff != null) {
				handoff.close();
			}
			attempt.waitEnded();
		}
	}

	/**
	 * Try while waiting: not while the release listener's try runs, whose answer wakes
	 * the waiter instead.
	 */
	private static boolean tryWaiting(AcquisitionAttempt attempt, @Nullable ReleaseHandoff handoff) {
		if (handoff == null) {
			return attempt.tryOnce();
		}
		if (!handoff.startWaiterTry()) {
			return false;
		}
		boolean acquired = false;
		try {
			acquired = attempt.tryOnce();
			return acquired;
		}
		finally {
			if (!acquired) {
				handoff.endWaiterTry();
			}
		}
	}

	/** Ask {@code stopWaiting}, after a wake, whether to stop waiting. */
	private static boolean stop(AcquisitionAttempt attempt, @Nullable BooleanSupplier stopWaiting) {
		if (stopWaiting != null && stopWaiting.getAsBoolean()) {
			attempt.stopped();
			return true;
		}
		return false;
	}

}
