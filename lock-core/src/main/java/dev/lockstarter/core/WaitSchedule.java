package dev.lockstarter.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * When a waiter tries again, for the blocking and the reactive template alike: either a
 * fixed number of retries at a fixed interval ({@link LockOptions#getRetries()}), or
 * until the wait time is over, polling with exponential backoff and jitter (from 100 ms
 * up to 1 s when release notifications wake the waiter, from 10 ms up to 500 ms without),
 * never sleeping past the holder's remaining time-to-live or the end of the wait. A
 * waiting writer also tries at least every half of its own time-to-live, which bounds the
 * wait it records in the store: each refused try records it anew.
 */
final class WaitSchedule {

	/** Polls while release notifications may wake the waiter: a safety net. */
	static final BackOff NOTIFIED_POLLS = polls(100, 1000);

	/** Polls of a store without release notifications. */
	static final BackOff POLLED_POLLS = polls(10, 500);

	private static final long ONE_MILLI = TimeUnit.MILLISECONDS.toNanos(1);

	private final long deadline;

	/** The polls until the deadline; {@code null} with fixed retries. */
	private final @Nullable BackOffExecution polls;

	private final long retryInterval;

	/** The longest pause while polling: half a writer's TTL, else unbounded. */
	private final long longestPoll;

	private int retriesLeft;

	private WaitSchedule(LockOptions options, boolean notified) {
		this.retriesLeft = options.getRetries();
		this.retryInterval = options.getRetryInterval().toNanos();
		this.polls = (this.retriesLeft > 0) ? null : (notified ? NOTIFIED_POLLS : POLLED_POLLS).start();
		this.deadline = System.nanoTime() + options.getWaitTime().toNanos();
		this.longestPoll = (options.getKind().type() == LockKind.Type.WRITE) ? options.getTtl().toNanos() / 2
				: Long.MAX_VALUE;
	}

	/**
	 * Whether an acquisition with these options waits at all, after a first try that
	 * found the lock held.
	 * @param options the options
	 * @return whether they set a wait time or retries
	 */
	static boolean waits(LockOptions options) {
		return options.getRetries() > 0 || !options.getWaitTime().isZero();
	}

	/**
	 * The longest an acquisition with these options goes on trying after its first try:
	 * the wait time, or the retries times their interval.
	 * @param options the options
	 * @return the duration, zero when it does not wait
	 */
	static Duration longestWait(LockOptions options) {
		return (options.getRetries() > 0) ? options.getRetryInterval().multipliedBy(options.getRetries())
				: options.getWaitTime();
	}

	/**
	 * Start the schedule of one acquisition's wait, its deadline counted from now.
	 * @param options the options
	 * @param notified whether release notifications wake the waiter
	 * @return the schedule
	 */
	static WaitSchedule start(LockOptions options, boolean notified) {
		return new WaitSchedule(options, notified);
	}

	/**
	 * Whether the wait runs until a deadline, its pauses cut short by release
	 * notifications, rather than a fixed number of retries at a fixed interval.
	 */
	boolean untilDeadline() {
		return this.polls != null;
	}

	/**
	 * Return the pause before the next try, and count it.
	 * @param holderRemainingTtl the holder's remaining time-to-live, from the last try
	 * @return the pause in nanoseconds, zero or more, or a negative number when the wait
	 * is over
	 */
	long nextPause(Duration holderRemainingTtl) {
		BackOffExecution polls = this.polls;
		if (polls == null) {
			return (this.retriesLeft-- > 0) ? this.retryInterval : -1;
		}
		long remaining = this.deadline - System.nanoTime();
		if (remaining <= 0) {
			return -1;
		}
		long untilExpiry = holderRemainingTtl.toNanos() + ONE_MILLI;
		long poll = Math.min(TimeUnit.MILLISECONDS.toNanos(polls.nextBackOff()), this.longestPoll);
		return Math.min(remaining, Math.min(untilExpiry, poll));
	}

	/**
	 * Intervals that double from {@code firstMillis} up to {@code maxMillis}, each moved
	 * at random by up to a fifth, so that waiters on one key do not poll in step.
	 */
	private static BackOff polls(long firstMillis, long maxMillis) {
		ExponentialBackOff polls = new ExponentialBackOff(firstMillis, 2);
		polls.setMaxInterval(maxMillis);
		polls.setJitter(firstMillis / 5);
		return polls;
	}

}
