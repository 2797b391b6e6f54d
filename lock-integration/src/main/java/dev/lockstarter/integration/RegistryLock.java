package dev.lockstarter.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LeaseLock;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockWaitInterruptedException;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.LogSafe;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The {@link DistributedLock} of a {@link LockOperationsLockRegistry} on one key: a
 * {@link LeaseLock} (so that {@link #lease()} gives the fencing token), whose every
 * method is its own:
 * <ul>
 * <li>Each lease is released by the unlock at the hold count where it was taken
 * ({@link HeldLeases}): a hold never given back, such as the one
 * {@code LockRegistryLeaderInitiator} keeps after a failed heartbeat, never keeps the
 * store's lock.</li>
 * <li>A re-entry that finds the lease lost (expired, taken over) throws
 * {@link ConcurrentModificationException} and takes nothing, whether the key is free or
 * not; so does the unlock that ends the hold which took a lost lease, as
 * {@code RedisLockRegistry}'s locks do.</li>
 * <li>A lock that the registry dropped while a caller kept it is never a second lock for
 * its key: when used, it returns to the registry if the key has no lock there, or hands
 * the call to the key's lock.</li>
 * </ul>
 * {@link LeaseLock}'s own state is not used.
 */
final class RegistryLock extends LeaseLock implements DistributedLock {

	/**
	 * The longest single wait handed to the operations by the methods that wait without a
	 * limit; they wait again until they hold the lock.
	 */
	private static final Duration WAIT_SLICE = Duration.ofMinutes(1);

	/** The value of {@link #users} once the registry dropped this lock. */
	private static final int DROPPED = -1;

	private static final Log logger = LogFactory.getLog(RegistryLock.class);

	private final LockOperationsLockRegistry registry;

	private final LockOperations operations;

	private final LockOptions options;

	private final ReentrantLock local = new ReentrantLock();

	/** Guarded by {@link #local}. */
	private final HeldLeases leases = new HeldLeases();

	/**
	 * The holds of this lock plus the acquisitions under way, or {@link #DROPPED}: the
	 * registry drops a lock only at zero, and a dropped lock takes no hold.
	 */
	private final AtomicInteger users = new AtomicInteger();

	/** Monotonic time of the last {@code obtain} that returned this lock. */
	volatile long obtainedAt = System.nanoTime();

	RegistryLock(LockOperationsLockRegistry registry, LockOperations operations, String key, LockOptions options) {
		super(operations, key, options);
		this.registry = registry;
		this.operations = operations;
		this.options = options.withWaitTime(Duration.ZERO);
	}

	@Override
	public void lock() {
		lock(this.options.getTtl());
	}

	@Override
	public void lock(Duration ttl) {
		RegistryLock successor = enter();
		if (successor != null) {
			successor.lock(ttl);
			return;
		}
		boolean acquired = false;
		try {
			this.local.lock();
			// Not interruptible: an interrupt already set would end a store call early
			boolean interrupted = Thread.interrupted();
			try {
				while (!acquired) {
					try {
						acquired = acquire(ttl, WAIT_SLICE);
					}
					catch (LockWaitInterruptedException ex) {
						interrupted |= Thread.interrupted();
					}
				}
			}
			finally {
				if (!acquired) {
					this.local.unlock();
				}
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
		}
		finally {
			leaveUnless(acquired);
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		RegistryLock successor = enter();
		if (successor != null) {
			successor.lockInterruptibly();
			return;
		}
		boolean acquired = false;
		try {
			this.local.lockInterruptibly();
			try {
				while (!acquired) {
					acquired = acquireInterruptibly(this.options.getTtl(), WAIT_SLICE);
				}
			}
			finally {
				if (!acquired) {
					this.local.unlock();
				}
			}
		}
		finally {
			leaveUnless(acquired);
		}
	}

	@Override
	public boolean tryLock() {
		RegistryLock successor = enter();
		if (successor != null) {
			return successor.tryLock();
		}
		boolean acquired = false;
		try {
			if (this.local.tryLock()) {
				try {
					acquired = acquire(this.options.getTtl(), Duration.ZERO);
				}
				finally {
					if (!acquired) {
						this.local.unlock();
					}
				}
			}
			return acquired;
		}
		finally {
			leaveUnless(acquired);
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return tryLock(Duration.ofNanos(unit.toNanos(time)), this.options.getTtl());
	}

	@Override
	public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
		long deadline = System.nanoTime() + Math.max(0, waitTime.toNanos());
		RegistryLock successor = enter();
		if (successor != null) {
			return successor.tryLock(Duration.ofNanos(remaining(deadline)), ttl);
		}
		boolean acquired = false;
		try {
			if (this.local.tryLock(remaining(deadline), TimeUnit.NANOSECONDS)) {
				try {
					acquired = acquireInterruptibly(ttl, Duration.ofNanos(remaining(deadline)));
				}
				finally {
					if (!acquired) {
						this.local.unlock();
					}
				}
			}
			return acquired;
		}
		finally {
			leaveUnless(acquired);
		}
	}

	/**
	 * Release one hold of the lock; the hold that took a lease releases it, by
	 * compare-and-delete on its owner token. A release that cannot reach the store logs a
	 * WARN and returns: the store's lock expires with its time-to-live.
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 * @throws ConcurrentModificationException if the hold took a lease that had expired
	 * or was taken over meanwhile; this thread holds it no more either way
	 */
	@Override
	public void unlock() {
		if (!this.local.isHeldByCurrentThread()) {
			RegistryLock successor = successorHeldByCurrentThread();
			if (successor == null) {
				throw new IllegalMonitorStateException("Lock '" + key() + "' is not held by the current thread");
			}
			successor.unlock();
			return;
		}
		try {
			Lease taken = this.leases.removeTakenAt(this.local.getHoldCount());
			if (taken != null && !release(taken)) {
				throw lostBeforeUnlock();
			}
		}
		finally {
			this.local.unlock();
			this.users.decrementAndGet();
		}
	}

	@Override
	public boolean isHeldByCurrentThread() {
		if (!this.local.isHeldByCurrentThread()) {
			RegistryLock successor = successorHeldByCurrentThread();
			return successor != null && successor.isHeldByCurrentThread();
		}
		Lease held = this.leases.extendable();
		return held != null && held.isHeld();
	}

	@Override
	public boolean isInUse() {
		return this.users.get() > 0;
	}

	@Override
	public Lease lease() {
		Lease held = heldLease();
		if (held == null) {
			throw new IllegalMonitorStateException("Lock '" + key() + "' is not held by the current thread");
		}
		return held;
	}

	@Override
	protected RuntimeException lostBeforeUnlock() {
		return new ConcurrentModificationException("Lock '" + key() + "' had expired or was taken over before its "
				+ "release; the integrity of the data it guarded may have been compromised");
	}

	/**
	 * Return the newest lease of the current thread, found lost or not.
	 * @return the lease, or {@code null} if the current thread does not hold the lock
	 */
	@Nullable Lease heldLease() {
		if (this.local.isHeldByCurrentThread()) {
			return this.leases.newest();
		}
		RegistryLock successor = successorHeldByCurrentThread();
		return (successor != null) ? successor.heldLease() : null;
	}

	/**
	 * Mark this lock dropped from the registry, if no thread holds it or is taking it.
	 * Called by the registry as it removes this lock from its map, atomically for the
	 * key.
	 * @return whether it is dropped
	 */
	boolean drop() {
		return this.users.compareAndSet(0, DROPPED);
	}

	/**
	 * Take this dropped lock back into use: called by the registry as it maps this lock
	 * to its key again, atomically for the key.
	 */
	void undrop() {
		this.users.compareAndSet(DROPPED, 0);
		this.obtainedAt = System.nanoTime();
	}

	/**
	 * Count the calling acquisition as a user of this lock, first taking this lock back
	 * into the registry if it was dropped and the key has no lock there.
	 * @return {@code null} to go on with this lock, or the key's lock in the registry to
	 * hand the call to
	 */
	private @Nullable RegistryLock enter() {
		while (true) {
			int users = this.users.get();
			if (users == DROPPED) {
				RegistryLock current = this.registry.current(this);
				if (current != this) {
					return current;
				}
			}
			else if (this.users.compareAndSet(users, users + 1)) {
				return null;
			}
		}
	}

	private void leaveUnless(boolean acquired) {
		if (!acquired) {
			this.users.decrementAndGet();
		}
	}

	private @Nullable RegistryLock successorHeldByCurrentThread() {
		if (this.users.get() != DROPPED) {
			return null;
		}
		RegistryLock successor = this.registry.mapped(key());
		return (successor != null && successor != this && successor.local.isHeldByCurrentThread()) ? successor : null;
	}

	private boolean acquireInterruptibly(Duration ttl, Duration wait) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		try {
			return acquire(ttl, wait);
		}
		catch (LockWaitInterruptedException ex) {
			Thread.interrupted();
			InterruptedException interrupted = new InterruptedException(ex.getMessage());
			interrupted.initCause(ex);
			throw interrupted;
		}
	}

	/**
	 * Take the store's lock for the thread that holds the local lock, at the hold count
	 * it now has: extend the newest lease on a re-entry, or take a new one.
	 */
	private boolean acquire(Duration ttl, Duration wait) {
		Lease newest = this.leases.extendable();
		if (newest != null) {
			if (newest.extend(ttl)) {
				return true;
			}
			this.leases.reportLoss();
			throw new ConcurrentModificationException("Lock '" + key() + "' had expired or was taken over before "
					+ "this re-entry, which takes nothing; the work of the holds before it was not exclusive");
		}
		LockAttempt attempt = this.operations.tryAcquire(key(), this.options.withTtl(ttl).withWaitTime(wait));
		if (!attempt.isAcquired()) {
			return false;
		}
		this.leases.add(this.local.getHoldCount(), attempt.lease());
		return true;
	}

	/**
	 * Release a lease; a store failure is logged, and counts as a release, since the lock
	 * expires with its time-to-live.
	 */
	private boolean release(Lease lease) {
		try {
			return lease.release();
		}
		catch (LockStoreException ex) {
			logger.warn(
					"Failed to release lock '" + LogSafe.key(key()) + "'; it expires at the end of its time-to-live",
					ex);
			return true;
		}
	}

	private static long remaining(long deadline) {
		return Math.max(0, deadline - System.nanoTime());
	}

	@Override
	public String toString() {
		return "LeaseLock[" + key() + ", " + (this.local.isLocked() ? "locked" : "unlocked") + "]";
	}

}
