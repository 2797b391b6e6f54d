package dev.lockstarter.core;

import java.util.Collection;

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
 * lost all the same, and the timer releases the lock that renewal lengthened.
 */
final class LeaseDeadlines {

	private final Collection<StoreLease> leases;

	private final LeaseTimer timer;

	/**
	 * Create the deadlines of the held leases.
	 * @param leases the held leases, concurrent, to which a lease is added before it is
	 * {@linkplain #register registered}
	 */
	LeaseDeadlines(Collection<StoreLease> leases) {
		this.leases = leases;
		this.timer = new LeaseTimer("lock-deadlines", this::loseOverdue, this::rearm);
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

	void shutdown() {
		this.timer.shutdown();
	}

	private void loseOverdue() {
		long now = System.nanoTime();
		for (StoreLease lease : this.leases) {
			if (lease.state() == StoreLease.State.HELD && now - lease.lossAt() >= 0) {
				lease.deadlinePassed();
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
