package dev.lockstarter.idempotency;

import java.time.Duration;

import dev.lockstarter.store.LockException;

/**
 * Thrown when a request carries the {@code Idempotency-Key} of a request that is still in
 * progress. In a web application it becomes a {@code 409 Conflict} problem response with
 * a {@code Retry-After} header.
 *
 * @since 0.1.0
 */
public class IdempotentRequestInProgressException extends LockException {

	private final Duration retryAfter;

	/**
	 * Create a new instance.
	 * @param retryAfter the remaining time-to-live of the in-progress request's lock
	 */
	public IdempotentRequestInProgressException(Duration retryAfter) {
		super(IdempotencyPolicy.LOCK_NAME,
				"A request with the same idempotency key is in progress; retry after " + retryAfter);
		this.retryAfter = retryAfter;
	}

	/**
	 * Return the remaining time-to-live of the in-progress request's lock: the longest it
	 * can take before a retry no longer conflicts.
	 * @return the remaining time-to-live, never negative
	 */
	public Duration getRetryAfter() {
		return this.retryAfter;
	}

}
