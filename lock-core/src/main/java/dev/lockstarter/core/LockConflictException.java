package dev.lockstarter.core;

import java.time.Duration;

import dev.lockstarter.store.LockException;

/**
 * Thrown when a lock is held by another owner and the caller does not wait for it. In a
 * web application it becomes a {@code 409 Conflict} (or {@code 422}) problem response
 * with a {@code Retry-After} header.
 *
 * @since 0.1.0
 */
public class LockConflictException extends LockException {

	/** Marker for "use the configured default status" in {@link #getConflictStatus()}. */
	public static final int DEFAULT_STATUS = 0;

	private final Duration retryAfter;

	private final int conflictStatus;

	/**
	 * Create a new instance that uses the application's default conflict status.
	 * @param lockName the name of the lock
	 * @param retryAfter when a retry is likely to succeed, at most the remaining
	 * time-to-live of the current holder's lock
	 */
	public LockConflictException(String lockName, Duration retryAfter) {
		this(lockName, retryAfter, DEFAULT_STATUS);
	}

	/**
	 * Create a new instance.
	 * @param lockName the name of the lock
	 * @param retryAfter when a retry is likely to succeed, at most the remaining
	 * time-to-live of the current holder's lock
	 * @param conflictStatus the HTTP status to answer with, or {@link #DEFAULT_STATUS}
	 */
	public LockConflictException(String lockName, Duration retryAfter, int conflictStatus) {
		super(lockName, "Lock '" + lockName + "' is held by another owner; retry after " + retryAfter);
		this.retryAfter = retryAfter;
		this.conflictStatus = conflictStatus;
	}

	/**
	 * Return when a retry is likely to succeed: the typical hold time of the lock's name
	 * ({@link dev.lockstarter.core.LockAttempt#retryAfter()}), never more than the
	 * holder's remaining time-to-live, after which a retry succeeds even if the holder
	 * never releases.
	 * @return the estimate, never negative
	 */
	public Duration getRetryAfter() {
		return this.retryAfter;
	}

	/**
	 * Return the HTTP status requested for this conflict by the annotated method.
	 * @return a 4xx status, or {@link #DEFAULT_STATUS} for the configured default
	 */
	public int getConflictStatus() {
		return this.conflictStatus;
	}

}
