package dev.lockstarter.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LeaseLock;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The {@link DistributedLock} of a {@link LockOperationsLockRegistry} on one key: a
 * {@link LeaseLock}, whose {@code lock(Duration)} and {@code tryLock(Duration, Duration)}
 * are the lease lock's. What it adds:
 * <ul>
 * <li>A re-entry that finds the lease lost, and the unlock that ends the hold which took
 * a lost lease, throw {@link ConcurrentModificationException}, as
 * {@code RedisLockRegistry}'s locks do.</li>
 * <li>A lock that the registry dropped while a caller kept it is never a second lock for
 * its key: when used, it returns to the registry if the key has no lock there, or hands
 * the call to the key's lock.</li>
 * <li>{@link #renew(Duration)}, for the registry's {@code renewLock}.</li>
 * </ul>
 */
final class RegistryLock extends LeaseLock implements DistributedLock {

	/** The value of {@link #users} once the registry dropped this lock. */
	private static final int DROPPED = -1;

	private final LockOperationsLockRegistry registry;

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
	}

	@Override
	public boolean isInUse() {
		return this.users.get() > 0;
	}

	/**
	 * Reset the time-to-live of this lock, held by the current thread, counted from now.
	 * @param ttl the new time-to-live, positive
	 * @throws IllegalStateException if the current thread does not hold the lock, or it
	 * had expired or was taken over
	 */
	void renew(Duration ttl) {
		Lease lease = heldLease();
		if (lease == null) {
			throw notHeldForRenewal(key());
		}
		if (!lease.extend(ttl)) {
			throw new IllegalStateException("Lock '" + key() + "' had expired or was taken over: it cannot be renewed");
		}
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
	 * into the registry if it was dropped and the key has no lock there; if it has one,
	 * that lock takes the acquisition.
	 */
	@Override
	protected LeaseLock enter() {
		while (true) {
			int users = this.users.get();
			if (users == DROPPED) {
				RegistryLock current = this.registry.current(this);
				if (current != this) {
					return current.enter();
				}
			}
			else if (this.users.compareAndSet(users, users + 1)) {
				return this;
			}
		}
	}

	@Override
	protected void exit() {
		this.users.decrementAndGet();
	}

	/**
	 * Return the key's lock in the registry, once the registry dropped this one.
	 */
	@Override
	protected @Nullable LeaseLock replacement() {
		if (this.users.get() != DROPPED) {
			return null;
		}
		RegistryLock mapped = this.registry.mapped(key());
		return (mapped != this) ? mapped : null;
	}

	@Override
	protected RuntimeException lostBeforeReentry() {
		return new ConcurrentModificationException("Lock '" + key() + "' had expired or was taken over before "
				+ "this re-entry, which takes nothing; the work of the holds before it was not exclusive");
	}

	@Override
	protected RuntimeException lostBeforeUnlock() {
		return new ConcurrentModificationException("Lock '" + key() + "' had expired or was taken over before its "
				+ "release; the integrity of the data it guarded may have been compromised");
	}

	static IllegalStateException notHeldForRenewal(Object key) {
		return new IllegalStateException("Lock '" + key + "' is not held by the current thread: it cannot be renewed");
	}

}
