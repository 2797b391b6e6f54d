package dev.lockstarter.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.LogSafe;

/**
 * Extends held leases before they expire, on a {@link LeaseTimer} shared by every lease
 * of a {@link LockTemplate}.
 * <p>
 * The timer is armed for the earliest renewal due. When it fires, every lease due within
 * a tenth of its time-to-live is extended, grouped by store (the mutexes, and the places
 * of shared locks) and time-to-live into {@link LockStore#extendAll} calls of at most
 * {@value #BATCH_SIZE} locks. A lease whose extension finds the lock gone is marked lost;
 * a store failure is retried until the lease's local deadline, at which
 * {@link LeaseDeadlines}, on a timer of its own that no renewal holds up, finds it lost.
 * A lease held longer than its maximum hold time is no longer renewed. No task outlives
 * the last registered lease.
 * <p>
 * The leases are those the template lists as held: registering one adds nothing to a
 * second collection, and a registration finds the timer already armed for an earlier time
 * without taking a lock, since leases of one time-to-live come due in the order they were
 * taken. A lease that ends before its first renewal is due costs the renewer no work.
 */
final class LeaseRenewer {

	private static final Log logger = LogFactory.getLog(LeaseRenewer.class);

	static final int BATCH_SIZE = 100;

	private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final Collection<StoreLease> leases;

	private final LeaseTimer timer;

	/**
	 * Create a renewer.
	 * @param leases the held leases, concurrent, to which a lease is added before it is
	 * {@linkplain #register registered}
	 */
	LeaseRenewer(Collection<StoreLease> leases) {
		this.leases = leases;
		this.timer = new LeaseTimer("lock-renewal", this::renewDue, this::rearm);
	}

	/**
	 * Make sure the renewer runs by the time the lease is due; the lease is already among
	 * the held leases.
	 */
	void register(StoreLease lease) {
		this.timer.armBy(lease.renewAt);
	}

	/** Return the number of leases being renewed. */
	int activeLeases() {
		int count = 0;
		for (StoreLease lease : this.leases) {
			if (isRenewed(lease)) {
				count++;
			}
		}
		return count;
	}

	private static boolean isRenewed(StoreLease lease) {
		return lease.renewing && lease.state() == StoreLease.State.HELD;
	}

	/** Return whether a renewal is scheduled. */
	boolean isScheduled() {
		return this.timer.isScheduled();
	}

	void shutdown() {
		this.timer.shutdown();
	}

	private void renewDue() {
		long now = System.nanoTime();
		Map<Batch, List<StoreLease>> due = new LinkedHashMap<>();
		for (StoreLease lease : this.leases) {
			if (!isRenewed(lease)) {
				continue;
			}
			if (lease.isPastMaxHold(now)) {
				lease.renewing = false;
				logger
					.warn("Stopped renewing lock '" + LogSafe.key(lease.key()) + "': it has been held longer than its "
							+ "maximum hold time; it expires within " + lease.ttl());
				lease.pastMaxHold();
			}
			else if (lease.renewAt - now <= lease.ttl().toNanos() / 10) {
				due.computeIfAbsent(new Batch(lease.store(), lease.ttl()), (batch) -> new ArrayList<>()).add(lease);
			}
		}
		due.forEach((batch, group) -> {
			for (int from = 0; from < group.size(); from += BATCH_SIZE) {
				extend(batch, group.subList(from, Math.min(group.size(), from + BATCH_SIZE)));
			}
		});
	}

	private void rearm() {
		long earliest = 0;
		boolean any = false;
		for (StoreLease lease : this.leases) {
			if (isRenewed(lease) && (!any || lease.renewAt - earliest < 0)) {
				earliest = lease.renewAt;
				any = true;
			}
		}
		if (any) {
			this.timer.armBy(earliest);
		}
	}

	private void extend(Batch batch, List<StoreLease> candidates) {
		List<StoreLease> locked = new ArrayList<>(candidates.size());
		try {
			for (StoreLease lease : candidates) {
				// A lease being released is skipped: its release decides what happens to
				// the lock.
				if (lease.guard.tryLock()) {
					if (lease.state() == StoreLease.State.HELD) {
						locked.add(lease);
					}
					else {
						lease.guard.unlock();
					}
				}
			}
			if (locked.isEmpty()) {
				return;
			}
			List<String> keys = new ArrayList<>(locked.size());
			List<String> tokens = new ArrayList<>(locked.size());
			for (StoreLease lease : locked) {
				keys.add(lease.storeKey());
				tokens.add(lease.token());
			}
			long sentAt = System.nanoTime();
			boolean[] extended;
			try {
				extended = batch.store().extendAll(keys, tokens, batch.ttl());
			}
			catch (LockStoreException ex) {
				retryLater(locked, ex);
				return;
			}
			for (int i = 0; i < locked.size(); i++) {
				StoreLease lease = locked.get(i);
				if (i < extended.length && extended[i]) {
					lease.renewed(sentAt);
				}
				else {
					lease.lost("its renewal found the lock expired or held by another owner");
				}
			}
		}
		finally {
			locked.forEach((lease) -> lease.guard.unlock());
		}
	}

	/**
	 * Try the failed renewals again soon; a lease whose local deadline comes first is
	 * lost by {@link LeaseDeadlines}, and no longer renewed.
	 */
	private void retryLater(List<StoreLease> leases, LockStoreException failure) {
		logger.warn("Failed to renew " + leases.size() + " lock(s); retrying until their local deadline", failure);
		for (StoreLease lease : leases) {
			long retry = Math.min(MAX_RETRY_NANOS, Math.max(MIN_RETRY_NANOS, lease.ttl().toNanos() / 10));
			lease.renewAt = System.nanoTime() + retry;
		}
	}

	/** Leases extended in one call: those of one store with one time-to-live. */
	private record Batch(LockStore store, Duration ttl) {

	}

}
