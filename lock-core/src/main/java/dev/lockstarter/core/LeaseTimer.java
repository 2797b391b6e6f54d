package dev.lockstarter.core;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One timer on a daemon thread of its own, armed for the earliest time that any of the
 * leases it serves is due, shared by every lease of a {@link LockTemplate}: the
 * {@link LeaseRenewer}'s, and the {@link LeaseDeadlines}'.
 * <p>
 * When it fires, it runs its work, disarms, and runs its re-arming scan, which arms it
 * again for the earliest lease still due. A lease that is due is added to the held leases
 * before it is {@linkplain #armBy armed for}, so a registration that finds the timer
 * armed added its lease before the run disarmed it, and the re-arming scan sees the
 * lease. Arming for a time no earlier than the armed one takes no lock.
 */
final class LeaseTimer {

	private static final Log logger = LogFactory.getLog(LeaseTimer.class);

	private final String threadName;

	private final Runnable work;

	private final Runnable rearm;

	private final ReentrantLock timerLock = new ReentrantLock();

	private @Nullable ScheduledThreadPoolExecutor executor;

	private @Nullable ScheduledFuture<?> timer;

	/**
	 * Whether {@link #timer} is armed, to fire at {@link #timerAt}; written under the
	 * {@link #timerLock}, read without it by {@link #armBy}.
	 */
	private volatile boolean armed;

	private volatile long timerAt;

	private boolean shutdown;

	/**
	 * Create a timer; its thread starts when it is first armed.
	 * @param threadName the name of its thread
	 * @param work what to do when it fires
	 * @param rearm the scan that arms it again, run once it is disarmed after the work
	 */
	LeaseTimer(String threadName, Runnable work, Runnable rearm) {
		this.threadName = threadName;
		this.work = work;
		this.rearm = rearm;
	}

	/**
	 * Make sure the timer fires by {@code at}.
	 * @param at the time, from {@link System#nanoTime()}
	 */
	void armBy(long at) {
		if (this.armed && this.timerAt - at <= 0) {
			return;
		}
		this.timerLock.lock();
		try {
			if (this.shutdown) {
				return;
			}
			if (this.timer != null && !this.timer.isDone()) {
				if (this.timerAt - at <= 0) {
					return;
				}
				this.timer.cancel(false);
			}
			this.timerAt = at;
			this.timer = executor().schedule(this::fire, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
			this.armed = true;
		}
		finally {
			this.timerLock.unlock();
		}
	}

	/** Return whether the timer is armed. */
	boolean isScheduled() {
		this.timerLock.lock();
		try {
			return this.timer != null && !this.timer.isDone();
		}
		finally {
			this.timerLock.unlock();
		}
	}

	void shutdown() {
		this.timerLock.lock();
		try {
			this.shutdown = true;
			this.armed = false;
			if (this.executor != null) {
				this.executor.shutdownNow();
			}
		}
		finally {
			this.timerLock.unlock();
		}
	}

	private void fire() {
		try {
			this.work.run();
		}
		catch (RuntimeException ex) {
			logger.error("Unexpected failure of the " + this.threadName + " timer", ex);
		}
		finally {
			this.timerLock.lock();
			try {
				this.timer = null;
				this.armed = false;
			}
			finally {
				this.timerLock.unlock();
			}
			this.rearm.run();
		}
	}

	private ScheduledThreadPoolExecutor executor() {
		if (this.executor == null) {
			ScheduledThreadPoolExecutor created = new ScheduledThreadPoolExecutor(1, (runnable) -> {
				Thread thread = new Thread(runnable, this.threadName);
				thread.setDaemon(true);
				return thread;
			});
			created.setRemoveOnCancelPolicy(true);
			created.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
			this.executor = created;
		}
		return this.executor;
	}

}
