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
 * of this process queue on a local lock first, and the thread that gets it takes the
 * store's lock with a fresh owner token. A thread that locks again while it holds the
 * lock extends the store's lock instead (one store call), and takes it anew if its lease
 * was lost meanwhile; each {@code lock} needs its {@code unlock}, and the last one
 * releases the store's lock.
 * <p>
 * Unlike a local lock:
 * <ul>
 * <li>the lock can be <b>lost</b>: it ends when its time-to-live passes without a renewal
 * (the options' renewal keeps it while the holder lives), and another process may then
 * take it; the last {@link #unlock()} tells the holder so by throwing
 * {@link LockNotHeldException};</li>
 * <li>a store that cannot be reached makes {@code lock} and {@code tryLock} throw
 * {@link LockStoreException} instead of waiting, and {@code unlock} log a WARN;</li>
 * <li>there are no {@linkplain #newCondition() conditions}.</li>
 * </ul>
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
	 * The store's lease, read and written only by the thread that holds {@link #local}.
	 */
	private @Nullable Lease lease;

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
	 */
	public void lock(Duration ttl) {
		this.local.lock();
		// Not interruptible: an interrupt already set would end a store call early
		boolean interrupted = Thread.interrupted();
		try {
			while (true) {
				try {
					if (acquire(ttl, WAIT_SLICE)) {
						return;
					}
				}
				catch (LockWaitInterruptedException ex) {
					interrupted |= Thread.interrupted();
				}
			}
		}
		catch (RuntimeException ex) {
			this.local.unlock();
			throw ex;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Acquire the lock with the options' time-to-live, waiting until it is free or the
	 * thread is interrupted.
	 * @throws InterruptedException if the thread is interrupted first; the lock is not
	 * held
	 * @throws LockStoreException if the store cannot be reached; the lock is not held
	 */
	@Override
	public void lockInterruptibly() throws InterruptedException {
		this.local.lockInterruptibly();
		boolean acquired = false;
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

	/**
	 * Acquire the lock with the options' time-to-live if it is free now, without waiting
	 * for the store's lock.
	 * @return whether the lock is now held
	 * @throws LockStoreException if the store cannot be reached; the lock is not held
	 */
	@Override
	public boolean tryLock() {
		if (!this.local.tryLock()) {
			return false;
		}
		boolean acquired = false;
		try {
			acquired = acquire(this.options.getTtl(), Duration.ZERO);
			return acquired;
		}
		finally {
			if (!acquired) {
				this.local.unlock();
			}
		}
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
	 */
	public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
		long deadline = System.nanoTime() + Math.max(0, waitTime.toNanos());
		if (!this.local.tryLock(Math.max(0, waitTime.toNanos()), TimeUnit.NANOSECONDS)) {
			return false;
		}
		boolean acquired = false;
		try {
			acquired = acquireInterruptibly(ttl, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
			return acquired;
		}
		finally {
			if (!acquired) {
				this.local.unlock();
			}
		}
	}

	/**
	 * Release one hold of the lock; the last one releases the store's lock, by
	 * compare-and-delete on its owner token. A last release that cannot reach the store
	 * logs a WARN and returns: the store's lock expires with its time-to-live, and this
	 * thread holds it no more.
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 * @throws LockNotHeldException on the last release, if the lock had expired or was
	 * taken over meanwhile; this thread holds it no more either way
	 */
	@Override
	public void unlock() {
		if (!this.local.isHeldByCurrentThread()) {
			throw new IllegalMonitorStateException("Lock '" + this.key + "' is not held by the current thread");
		}
		try {
			if (this.local.getHoldCount() == 1) {
				Lease held = this.lease;
				this.lease = null;
				// No lease: a re-entry found it lost and could not take the lock again
				if (held == null || !release(held)) {
					throw lostBeforeUnlock();
				}
			}
		}
		finally {
			this.local.unlock();
		}
	}

	/**
	 * Return whether the current thread holds this lock and its lease has not been found
	 * lost or expired.
	 * @return {@code true} if held by the current thread
	 */
	public boolean isHeldByCurrentThread() {
		Lease held = this.local.isHeldByCurrentThread() ? this.lease : null;
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
	 * Return the lease of the store's lock, for its fencing token.
	 * @return the lease
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 */
	public Lease lease() {
		Lease held = this.local.isHeldByCurrentThread() ? this.lease : null;
		if (held == null) {
			throw new IllegalMonitorStateException("Lock '" + this.key + "' is not held by the current thread");
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
	 * Return the exception the last {@link #unlock()} throws when the lock had expired or
	 * was taken over before it: a {@link LockNotHeldException}.
	 * @return the exception to throw
	 */
	protected RuntimeException lostBeforeUnlock() {
		return new LockNotHeldException(this.key, "Lock '" + this.key
				+ "' had expired or was taken over before its release; the work it guarded was not exclusive");
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
	 * Take the store's lock for the thread that holds the local lock: extend the lease on
	 * a re-entry, or acquire a new one.
	 */
	private boolean acquire(Duration ttl, Duration wait) {
		Lease held = this.lease;
		if (held != null) {
			if (held.extend(ttl)) {
				return true;
			}
			this.lease = null;
		}
		LockAttempt attempt = this.operations.tryAcquire(this.key, this.options.withTtl(ttl).withWaitTime(wait));
		if (!attempt.isAcquired()) {
			return false;
		}
		this.lease = attempt.lease();
		return true;
	}

	/**
	 * Release the lease; a store failure is logged, and counts as a release, since the
	 * lock expires with its time-to-live.
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

	@Override
	public String toString() {
		return "LeaseLock[" + this.key + ", " + (this.local.isLocked() ? "locked" : "unlocked") + "]";
	}

}
