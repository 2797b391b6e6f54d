package dev.lockstarter.core;

import java.time.Duration;
import java.util.NoSuchElementException;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of {@link LockOperations#tryAcquire(String, Duration)}: either a
 * {@link Lease}, or the remaining time-to-live of the lock held by someone else. For an
 * acquisition of several keys, the lease covers them all, or the attempt names the first
 * key found held.
 *
 * @since 0.1.0
 */
public final class LockAttempt {

	private final String key;

	private final @Nullable Lease lease;

	private final Duration holderRemainingTtl;

	private final Duration retryAfter;

	private LockAttempt(String key, @Nullable Lease lease, Duration holderRemainingTtl, Duration retryAfter) {
		this.key = key;
		this.lease = lease;
		this.holderRemainingTtl = holderRemainingTtl;
		this.retryAfter = retryAfter;
	}

	static LockAttempt acquired(Lease lease) {
		return new LockAttempt(lease.key(), lease, Duration.ZERO, Duration.ZERO);
	}

	static LockAttempt held(String key, Duration holderRemainingTtl) {
		return held(key, holderRemainingTtl, holderRemainingTtl);
	}

	static LockAttempt held(String key, Duration holderRemainingTtl, Duration retryAfter) {
		return new LockAttempt(key, null, holderRemainingTtl,
				(retryAfter.compareTo(holderRemainingTtl) < 0) ? retryAfter : holderRemainingTtl);
	}

	/**
	 * Return whether the lock was acquired.
	 * @return {@code true} if {@link #lease()} may be called
	 */
	public boolean isAcquired() {
		return this.lease != null;
	}

	/**
	 * Return the lease of an acquired lock.
	 * @return the lease
	 * @throws NoSuchElementException if the lock was not acquired
	 */
	public Lease lease() {
		if (this.lease == null) {
			throw new NoSuchElementException("Lock '" + this.key + "' was not acquired");
		}
		return this.lease;
	}

	/**
	 * Return the key found held by another owner: the key asked for or, when several keys
	 * were asked for at once, the first of them found held.
	 * @return the held key, or {@code null} if acquired
	 * @since 0.1.0
	 */
	public @Nullable String heldKey() {
		return (this.lease != null) ? null : this.key;
	}

	/**
	 * Return how long the current holder's lock remains valid.
	 * @return the holder's remaining time-to-live; {@link Duration#ZERO} if acquired
	 */
	public Duration holderRemainingTtl() {
		return this.holderRemainingTtl;
	}

	/**
	 * Return when a retry is likely to find the lock free: the typical time this lock's
	 * name is held, as {@link LockTemplate} observed it in this instance, and never more
	 * than {@link #holderRemainingTtl()}, which it is when no hold of the name has been
	 * observed yet.
	 * @return the estimate; {@link Duration#ZERO} if acquired
	 */
	public Duration retryAfter() {
		return this.retryAfter;
	}

	/**
	 * Return the lease, or throw a {@link LockConflictException} if the lock is held.
	 * @return the lease
	 * @throws LockConflictException if the lock was not acquired
	 */
	public Lease orElseThrow() {
		if (this.lease == null) {
			throw new LockConflictException(this.key, this.retryAfter);
		}
		return this.lease;
	}

}
