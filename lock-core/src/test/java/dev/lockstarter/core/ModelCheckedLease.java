package dev.lockstarter.core;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.lockstarter.store.memory.InMemoryLockStore;

/**
 * One {@link StoreLease} of a lock held in an in-memory store, for the model checker,
 * with what the {@link LeaseRenewer} and the {@link LeaseDeadlines} do to it when their
 * timers fire: the timers themselves are never armed (they schedule on a real executor),
 * and a test thread runs their work instead. The store counts the extensions it
 * confirmed, and a listener counts what the lease told.
 */
final class ModelCheckedLease {

	static final String KEY = "k";

	static final String TOKEN = "owner";

	final ConfirmingStore store = new ConfirmingStore();

	final StoreLease lease;

	final AtomicInteger lostEvents = new AtomicInteger();

	final AtomicInteger releasedEvents = new AtomicInteger();

	/**
	 * Take the lock in the store now and make its lease as if the acquisition was sent at
	 * {@code acquiredAt}; its renewal is due.
	 * @param options the lease's options
	 * @param acquiredAt when the acquisition was sent, from {@link System#nanoTime()}: in
	 * the past by more than the time-to-live less the loss margin for a lease whose local
	 * deadline has passed while the store still holds its lock
	 */
	ModelCheckedLease(LockOptions options, long acquiredAt) {
		this.store.tryAcquire(KEY, TOKEN, options.getTtl());
		LockEvents events = new LockEvents("memory");
		events.addListener(new CountingListener());
		this.lease = new StoreLease(events, new StoreCapabilities(this.store), KEY, KEY, TOKEN, 1, options, acquiredAt,
				LossMargin.DEFAULT);
		events.acquired(this.lease);
		this.lease.renewAt = acquiredAt;
	}

	/**
	 * What the renewer's timer runs when it fires ({@code LeaseRenewer.renewDue}), on a
	 * renewer of this one lease made on the calling thread: a renewer keeps no state
	 * between runs but its timer.
	 */
	void renewDue() {
		timerWork(new LeaseRenewer(List.of(this.lease))).run();
	}

	/**
	 * What the deadlines' timer runs when it fires ({@code LeaseDeadlines.loseOverdue}),
	 * on deadlines of this one lease made on the calling thread.
	 */
	void loseOverdue() {
		timerWork(new LeaseDeadlines(List.of(this.lease), Runnable::run)).run();
	}

	/** Whether the store holds the lock for the lease's owner. */
	boolean storeHolds() {
		return !this.store.timeToExpiry(KEY).isZero();
	}

	/**
	 * The work that the timer of a renewer or of deadlines runs when it fires, read from
	 * their private fields, and called as the timer calls it.
	 */
	private static Runnable timerWork(Object timed) {
		try {
			Field timer = timed.getClass().getDeclaredField("timer");
			timer.setAccessible(true);
			Field work = LeaseTimer.class.getDeclaredField("work");
			work.setAccessible(true);
			return (Runnable) work.get(timer.get(timed));
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Counts the releases and losses told. */
	private final class CountingListener implements LockListener {

		@Override
		public void released(HeldLock lock, boolean owned) {
			ModelCheckedLease.this.releasedEvents.incrementAndGet();
		}

		@Override
		public void lost(HeldLock lock, String reason) {
			ModelCheckedLease.this.lostEvents.incrementAndGet();
		}

	}

	/** An in-memory store that counts the extensions it confirmed. */
	static final class ConfirmingStore extends InMemoryLockStore {

		final AtomicInteger confirmedExtensions = new AtomicInteger();

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			boolean extended = super.extend(key, token, ttl);
			if (extended) {
				this.confirmedExtensions.incrementAndGet();
			}
			return extended;
		}

	}

}
