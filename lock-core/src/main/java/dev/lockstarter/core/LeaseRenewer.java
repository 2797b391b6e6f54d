package dev.lockstarter.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LogSafe;
import dev.lockstarter.store.LockStoreException;

/**
 * Extends held leases before they expire, on one daemon thread shared by every lease of a
 * {@link LockTemplate}.
 * <p>
 * A single timer is armed for the earliest renewal due. When it fires, every lease due
 * within a tenth of its time-to-live is extended, grouped by time-to-live into
 * {@link LockStore#extendAll} calls of at most {@value #BATCH_SIZE} locks. A lease whose
 * extension finds the lock gone is marked lost; a store failure is retried until the
 * lock's time-to-live passes, and then the lease is lost too. A lease held longer than
 * its maximum hold time is no longer renewed. No task outlives the last registered lease.
 */
final class LeaseRenewer {

	private static final Log logger = LogFactory.getLog(LeaseRenewer.class);

	static final int BATCH_SIZE = 100;

	private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final LockStore store;

	private final Set<StoreLease> leases = ConcurrentHashMap.newKeySet();

	private final ReentrantLock timerLock = new ReentrantLock();

	private @Nullable ScheduledThreadPoolExecutor executor;

	private @Nullable ScheduledFuture<?> timer;

	private long timerAt;

	private boolean shutdown;

	LeaseRenewer(LockStore store) {
		this.store = store;
	}

	void register(StoreLease lease) {
		this.leases.add(lease);
		arm(lease.renewAt);
	}

	void unregister(StoreLease lease) {
		this.leases.remove(lease);
	}

	/** Return the number of leases being renewed. */
	int activeLeases() {
		return this.leases.size();
	}

	/** Return whether a renewal is scheduled. */
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
			this.leases.clear();
			if (this.executor != null) {
				this.executor.shutdownNow();
			}
		}
		finally {
			this.timerLock.unlock();
		}
	}

	private void arm(long at) {
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
			this.timer = executor().schedule(this::renewDue, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		finally {
			this.timerLock.unlock();
		}
	}

	private ScheduledThreadPoolExecutor executor() {
		if (this.executor == null) {
			ScheduledThreadPoolExecutor created = new ScheduledThreadPoolExecutor(1, (runnable) -> {
				Thread thread = new Thread(runnable, "lock-renewal");
				thread.setDaemon(true);
				return thread;
			});
			created.setRemoveOnCancelPolicy(true);
			created.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
			this.executor = created;
		}
		return this.executor;
	}

	private void renewDue() {
		try {
			long now = System.nanoTime();
			Map<Duration, List<StoreLease>> due = new LinkedHashMap<>();
			for (StoreLease lease : this.leases) {
				if (lease.isPastMaxHold(now)) {
					unregister(lease);
					logger.warn("Stopped renewing lock '" + LogSafe.key(lease.key())
							+ "': it has been held longer than its " + "maximum hold time; it expires within "
							+ lease.ttl());
				}
				else if (lease.renewAt - now <= lease.ttl().toNanos() / 10) {
					due.computeIfAbsent(lease.ttl(), (ttl) -> new ArrayList<>()).add(lease);
				}
			}
			due.forEach((ttl, group) -> {
				for (int from = 0; from < group.size(); from += BATCH_SIZE) {
					extend(ttl, group.subList(from, Math.min(group.size(), from + BATCH_SIZE)));
				}
			});
		}
		catch (RuntimeException ex) {
			logger.error("Unexpected failure while renewing locks", ex);
		}
		finally {
			this.timerLock.lock();
			try {
				this.timer = null;
			}
			finally {
				this.timerLock.unlock();
			}
			rearm();
		}
	}

	private void rearm() {
		long earliest = 0;
		boolean any = false;
		for (StoreLease lease : this.leases) {
			if (!any || lease.renewAt - earliest < 0) {
				earliest = lease.renewAt;
				any = true;
			}
		}
		if (any) {
			arm(earliest);
		}
	}

	private void extend(Duration ttl, List<StoreLease> candidates) {
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
				extended = this.store.extendAll(keys, tokens, ttl);
			}
			catch (LockStoreException ex) {
				retryLater(locked, sentAt, ex);
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

	private void retryLater(List<StoreLease> leases, long failedAt, LockStoreException failure) {
		logger.warn("Failed to renew " + leases.size() + " lock(s); retrying until they expire", failure);
		for (StoreLease lease : leases) {
			if (failedAt - lease.expiresAt() >= 0) {
				lease.lost("the lock store could not be reached until the lock expired");
			}
			else {
				long retry = Math.min(MAX_RETRY_NANOS, Math.max(MIN_RETRY_NANOS, lease.ttl().toNanos() / 10));
				lease.renewAt = System.nanoTime() + retry;
			}
		}
	}

}
