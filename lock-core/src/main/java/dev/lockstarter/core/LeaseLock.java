package dev.lockstarter.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.LogSafe;
import org.springframework.util.Assert;

/**
 * A {@link Lock} on one key of a {@link LockOperations}, for code that takes a
 * {@code java.util.concurrent.locks.Lock}: it excludes every holder of the key on every
 * instance that shares the store, whether it locked through this type, an annotation or
 * {@link LockOperations}. Obtained with {@link LockOperations#lock(String, LockOptions)}.
 * <p>
 * The lock is reentrant and owned by a thread, as a {@link ReentrantLock} is: the threads
 * of this process queue on a local lock first, and the one that gets it takes the store's
 * lock; a re-entry extends it, and the {@code unlock} of the hold that took it releases
 * it. Unlike a local lock it can be lost (a re-entry or that {@code unlock} then throws
 * {@link LockNotHeldException}), a store that cannot be reached makes {@code lock} and
 * {@code tryLock} throw {@link LockStoreException}, and it has no
 * {@linkplain #newCondition() conditions}. The reference guide's page on the {@code Lock}
 * adapter has the details.
 *
 * @since 0.1.0
 */
public class LeaseLock implements Lock {

	/**
	 * The longest single wait handed to the operations by the methods that wait without a
	 * limit; they wait again until they hold the lock.
	 */
	private static final Duration WAIT_SLICE = Duration.ofMinutes(1);

	private static final Log logger = LogFactory.getLog(LeaseLock.class);

	private final LockOperations operations;

	private final String key;

	private final LockOptions options;

	private final ReentrantLock local = new ReentrantLock();

	/**
	 * The store's leases, read and written only by the thread that holds {@link #local}.
	 */
	private final HeldLeases leases = new HeldLeases();

	/**
	 * Create a lock on a key.
	 * @param operations the operations that take the store's lock
	 * @param key the key, not blank
	 * @param options the time-to-live, renewal, hold times and name of each acquisition;
	 * their wait time and retries are not used, each method says how long it waits
	 */
	public LeaseLock(LockOperations operations, String key, LockOptions options) {
		Assert.notNull(operations, "'operations' must not be null");
		Assert.hasText(key, "'key' must not be blank");
		Assert.notNull(options, "'options' must not be null");
		this.operations = operations;
		this.key = key;
		this.options = options.withWaitTime(Duration.ZERO);
	}

	/**
	 * Return the key this lock takes.
	 * @return the key, without the store's prefix
	 */
	public String key() {
		return this.key;
	}

	/**
	 * Acquire the lock with the options' time-to-live, waiting as long as it takes; an
	 * interruption does not end the wait, and is kept for the caller to see.
	 * @throws LockStoreException if the store cannot be reached; the lock is not held
	 * @throws LockNotHeldException if a re-entry finds the lock lost; it takes nothing
	 */
	@Override
	public void lock() {
		lock(this.options.getTtl());
	}

	/**
	 * Acquire the lock with the given time-to-live, waiting as long as it takes; an
	 * interruption does not end the wait, and is kept for the caller to see.
	 * @param ttl the time-to-live, positive
	 * @throws LockStoreException if the store cannot be reached; the lock is not held
	 * @throws LockNotHeldException if a re-entry finds the lock lost; it takes nothing
	 */
	public void lock(Duration ttl) {
		enter().lockEntered(ttl);
	}

	/**
	 * Acquire the lock with the options' time-to-live, waiting until it is free or the
	 * thread is interrupted.
	 * @throws InterruptedException if the thread is interrupted first; the lock is not
	 * held
	 * @throws LockStoreException if the store cannot be reached; the lock is not held
	 * @throws LockNotHeldException if a re-entry finds the lock lost; it takes nothing
	 */
	@Override
	public void lockInterruptibly() throws InterruptedException {
		enter().lockInterruptiblyEntered();
	}

	/**
	 * Acquire the lock with the options' time-to-live if it is free now, without waiting
	 * for the store's lock.
	 * @return whether the lock is now held
	 * @throws LockStoreException if the store cannot be reached; the lock is not held
	 * @throws LockNotHeldException if a re-entry finds the lock lost; it takes nothing
	 */
	@Override
	public boolean tryLock() {
		return enter().tryLockEntered();
	}

	/**
	 * Acquire the lock with the options' time-to-live, waiting for it at most the given
	 * time.
	 * @param time the longest wait
	 * @param unit the unit of {@code time}
	 * @return whether the lock is now held
	 * @throws InterruptedException if the thread is interrupted first; the lock is not
	 * held
	 * @throws LockStoreException if the store cannot be reached; the lock is not held
	 * @throws LockNotHeldException if a re-entry finds the lock lost; it takes nothing
	 */
	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return tryLock(Duration.ofNanos(unit.toNanos(time)), this.options.getTtl());
	}

	/**
	 * Acquire the lock with the given time-to-live, waiting for it at most the given
	 * time.
	 * @param waitTime the longest wait, zero or negative for none
	 * @param ttl the time-to-live, positive
	 * @return whether the lock is now held
	 * @throws InterruptedException if the thread is interrupted first; the lock is not
	 * held
	 * @throws LockStoreException if the store cannot be reached; the lock is not held
	 * @throws LockNotHeldException if a re-entry finds the lock lost; it takes nothing
	 */
	public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
		long deadline = System.nanoTime() + Math.max(0, waitTime.toNanos());
		return enter().tryLockEntered(deadline, ttl);
	}

	/**
	 * Release one hold of the lock; the hold that took the store's lock releases it, by
	 * compare-and-delete on its owner token. A release that cannot reach the store logs a
	 * WARN and returns: the store's lock expires with its time-to-live, and this thread
	 * holds it no more.
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 * @throws LockNotHeldException if this hold took the store's lock and it had expired
	 * or was taken over meanwhile; this thread holds it no more either way
	 */
	@Override
	public void unlock() {
		LeaseLock holder = holderOrNull();
		if (holder == null) {
			throw notHeldByCurrentThread();
		}
		holder.unlockHeld();
	}

	/**
	 * Return whether the current thread holds this lock and its lease has not been found
	 * lost or expired.
	 * @return {@code true} if held by the current thread
	 */
	public boolean isHeldByCurrentThread() {
		LeaseLock holder = holderOrNull();
		Lease held = (holder != null) ? holder.leases.extendable() : null;
		return held != null && held.isHeld();
	}

	/**
	 * Return whether a thread of this process holds this lock or waits for it.
	 * @return {@code true} if in use in this process
	 */
	public boolean isInUse() {
		return this.local.isLocked() || this.local.hasQueuedThreads();
	}

	/**
	 * Return the lease of the store's lock that the current thread took last, for its
	 * fencing token; it may have been found lost.
	 * @return the lease
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 */
	public Lease lease() {
		Lease held = heldLease();
		if (held == null) {
			throw notHeldByCurrentThread();
		}
		return held;
	}

	/**
	 * Not supported: a thread on another instance could not signal it.
	 * @throws UnsupportedOperationException always
	 */
	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("A distributed lock has no conditions");
	}

	/**
	 * Return the lease of the store's lock that the current thread took last, found lost
	 * or not.
	 * @return the lease, or {@code null} if the current thread does not hold this lock
	 */
	protected @Nullable Lease heldLease() {
		LeaseLock holder = holderOrNull();
		return (holder != null) ? holder.leases.newest() : null;
	}

	/**
	 * Return the lock that takes an acquisition, called as the acquisition begins, before
	 * it waits for the local lock: this lock, or another lock on the same key that takes
	 * the whole call in its place. The lock returned is told {@link #exit()} once for
	 * each acquisition it took, and only for those. This lock returns itself.
	 * @return the lock that takes the acquisition
	 */
	protected LeaseLock enter() {
		return this;
	}

	/**
	 * Called once for each acquisition that {@link #enter()} gave this lock: when it ends
	 * without the lock, or by the {@code unlock} that gives back the hold it took. Does
	 * nothing here.
	 */
	protected void exit() {
	}

	/**
	 * Return the lock on the same key that stands in for this one for a thread that does
	 * not hold this lock: {@link #unlock()}, {@link #isHeldByCurrentThread()} and
	 * {@link #lease()} go to it if the current thread holds it. This lock has none.
	 * @return the lock, or {@code null}
	 */
	protected @Nullable LeaseLock replacement() {
		return null;
	}

	/**
	 * Return what a re-entry that finds the lock lost throws: a
	 * {@link LockNotHeldException}.
	 */
	protected RuntimeException lostBeforeReentry() {
		return new LockNotHeldException(this.key, "Lock '" + this.key + "' had expired or was taken over before "
				+ "this re-entry, which takes nothing; the work of the holds before it was not exclusive");
	}

	/**
	 * Return the exception the {@link #unlock()} of the hold that took the store's lock
	 * throws when the lock had expired or was taken over before it: a
	 * {@link LockNotHeldException}.
	 * @return the exception to throw
	 */
	protected RuntimeException lostBeforeUnlock() {
		return new LockNotHeldException(this.key, "Lock '" + this.key
				+ "' had expired or was taken over before its release; the work it guarded was not exclusive");
	}

	private void lockEntered(Duration ttl) {
		int holds = this.local.getHoldCount();
		boolean acquired = false;
		// Not interruptible: an interrupt already set would end a store call early
		boolean interrupted = Thread.interrupted();
		try {
			this.local.lock();
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
			endUnless(acquired, holds);
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void lockInterruptiblyEntered() throws InterruptedException {
		int holds = this.local.getHoldCount();
		boolean acquired = false;
		try {
			this.local.lockInterruptibly();
			while (!acquired) {
				acquired = acquireInterruptibly(this.options.getTtl(), WAIT_SLICE);
			}
		}
		finally {
			endUnless(acquired, holds);
		}
	}

	private boolean tryLockEntered() {
		int holds = this.local.getHoldCount();
		boolean acquired = false;
		try {
			acquired = this.local.tryLock() && acquire(this.options.getTtl(), Duration.ZERO);
		}
		finally {
			endUnless(acquired, holds);
		}
		return acquired;
	}

	private boolean tryLockEntered(long deadline, Duration ttl) throws InterruptedException {
		int holds = this.local.getHoldCount();
		boolean acquired = false;
		try {
			acquired = this.local.tryLock(remaining(deadline), TimeUnit.NANOSECONDS)
					&& acquireInterruptibly(ttl, Duration.ofNanos(remaining(deadline)));
		}
		finally {
			endUnless(acquired, holds);
		}
		return acquired;
	}

	/**
	 * End an acquisition unless it took the lock: give back the hold of the local lock it
	 * took, if it took one.
	 */
	private void endUnless(boolean acquired, int holdsBefore) {
		if (acquired) {
			return;
		}
		if (this.local.getHoldCount() > holdsBefore) {
			this.local.unlock();
		}
		exit();
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
			throw lostBeforeReentry();
		}
		LockAttempt attempt = this.operations.tryAcquire(this.key, this.options.withTtl(ttl).withWaitTime(wait));
		if (!attempt.isAcquired()) {
			return false;
		}
		this.leases.add(this.local.getHoldCount(), attempt.lease());
		return true;
	}

	/**
	 * Give back a hold of the current thread, which holds the local lock, releasing the
	 * lease taken at its hold count.
	 */
	private void unlockHeld() {
		try {
			Lease taken = this.leases.removeTakenAt(this.local.getHoldCount());
			if (taken != null && !release(taken)) {
				throw lostBeforeUnlock();
			}
		}
		finally {
			this.local.unlock();
			exit();
		}
	}

	/**
	 * Release a lease; a store failure is logged, and counts as a release, since the lock
	 * expires with its time-to-live.
	 */
	private boolean release(Lease held) {
		try {
			return held.release();
		}
		catch (LockStoreException ex) {
			logger.warn(
					"Failed to release lock '" + LogSafe.key(this.key) + "'; it expires at the end of its time-to-live",
					ex);
			return true;
		}
	}

	private IllegalMonitorStateException notHeldByCurrentThread() {
		return new IllegalMonitorStateException("Lock '" + this.key + "' is not held by the current thread");
	}

	/**
	 * Return the lock whose local lock the current thread holds for this one: this lock,
	 * its {@linkplain #replacement() replacement}, or none.
	 */
	private @Nullable LeaseLock holderOrNull() {
		if (this.local.isHeldByCurrentThread()) {
			return this;
		}
		LeaseLock replacement = replacement();
		return (replacement != null && replacement.local.isHeldByCurrentThread()) ? replacement : null;
	}

	private static long remaining(long deadline) {
		return Math.max(0, deadline - System.nanoTime());
	}

	@Override
	public String toString() {
		return "LeaseLock[" + this.key + ", " + (this.local.isLocked() ? "locked" : "unlocked") + "]";
	}

}
