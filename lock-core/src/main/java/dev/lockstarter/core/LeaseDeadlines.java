package dev.lockstarter.core;

import java.util.Collection;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Declares held leases lost at their local deadline, renewed or not, on a
 * {@link LeaseTimer} of its own shared by every lease of a {@link LockTemplate}.
 * <p>
 * A lease's {@linkplain StoreLease#lossAt() local deadline} is its time-to-live, less the
 * {@link LossMargin}, after the last acquisition or extension that the store confirmed,
 * counted from when that command was sent. Past it, the store may already have let the
 * lock go, whatever this JVM's wall clock says, so the lease is lost: its
 * {@link Lease#isHeld()} turns false, the loss is logged, counted and published, and its
 * {@link Lease#whenLost} actions run (with {@code OnLeaseLost.CANCEL}, the guarded work
 * is cancelled). This timer makes no store call, so a renewal that the store is slow to
 * answer delays no loss; a renewal confirmed in time has already moved the deadline. The
 * one exception is a renewal confirmed while the timer judged its lease: the lease is
 * lost all the same, and the lock that renewal lengthened is released. Neither that
 * release nor the listeners of a loss (a {@code LockLostEvent} among them) run on the
 * timer's thread: a slow listener or store delays no other lease's deadline, and a
 * lease's loss actions (its work's cancellation) run at its deadline, before its
 * listeners.
 */
final class LeaseDeadlines {

	private final Collection<StoreLease> leases;

	private final LeaseTimer timer;

	private final Executor followUps;

	private final @Nullable ExecutorService ownFollowUps;

	/**
	 * Create the deadlines of the held leases, whose losses are told to listeners on a
	 * daemon thread of their own, {@code lock-loss}, started on demand.
	 * @param leases the held leases, concurrent, to which a lease is added before it is
	 * {@linkplain #register registered}
	 */
	LeaseDeadlines(Collection<StoreLease> leases) {
		this(leases, followUpThread());
	}

	/**
	 * Create the deadlines of the held leases.
	 * @param leases the held leases, concurrent, to which a lease is added before it is
	 * {@linkplain #register registered}
	 * @param followUps where a lost lease's listeners are told, and its lock released
	 */
	LeaseDeadlines(Collection<StoreLease> leases, Executor followUps) {
		this.leases = leases;
		this.followUps = followUps;
		this.ownFollowUps = (followUps instanceof ExecutorService service) ? service : null;
		this.timer = new LeaseTimer("lock-deadlines", this::loseOverdue, this::rearm);
	}

	/**
	 * One daemon thread, ended after a minute without work, that tells the listeners of
	 * the losses found at their deadlines and releases the locks that a renewal confirmed
	 * late lengthened: the deadline thread makes no call that user code or a store can
	 * delay, so every lease due is lost, and its work cancelled, at its deadline.
	 */
	private static ExecutorService followUpThread() {
		ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
				(task) -> {
					Thread thread = new Thread(task, "lock-loss");
					thread.setDaemon(true);
					return thread;
				});
		executor.allowCoreThreadTimeOut(true);
		return executor;
	}

	/**
	 * Make sure the lease is lost by its local deadline; it is already among the held
	 * leases. Called again whenever an extension moves the deadline earlier.
	 */
	void register(StoreLease lease) {
		this.timer.armBy(lease.lossAt());
	}

	/** Return whether a deadline is being watched. */
	boolean isScheduled() {
		return this.timer.isScheduled();
	}

	/** Stop the timer; the losses already found are still told. */
	void shutdown() {
		this.timer.shutdown();
		if (this.ownFollowUps != null) {
			this.ownFollowUps.shutdown();
		}
	}

	private void loseOverdue() {
		long now = System.nanoTime();
		for (StoreLease lease : this.leases) {
			if (lease.state() == StoreLease.State.HELD && now - lease.lossAt() >= 0) {
				lease.deadlinePassed(this.followUps);
			}
		}
	}

	private void rearm() {
		long earliest = 0;
		boolean any = false;
		for (StoreLease lease : this.leases) {
			if (lease.state() == StoreLease.State.HELD && (!any || lease.lossAt() - earliest < 0)) {
				earliest = lease.lossAt();
				any = true;
			}
		}
		if (any) {
			this.timer.armBy(earliest);
		}
	}

}
