package dev.lockstarter.idempotency;

import dev.lockstarter.store.LockException;

/**
 * Thrown when a request to an {@link IdempotentRequest} handler has no
 * {@code Idempotency-Key} header although one is required, or has a malformed or
 * over-long one. In a web application it becomes a {@code 400 Bad Request} problem
 * response.
 *
 * @since 0.1.0
 */
public class InvalidIdempotencyKeyException extends LockException {

	private final boolean missing;

	/**
	 * Create a new instance.
	 * @param message what is wrong with the key, safe to show to the client
	 * @param missing whether the header is missing, rather than malformed
	 */
	public InvalidIdempotencyKeyException(String message, boolean missing) {
		super(IdempotencyPolicy.LOCK_NAME, message);
		this.missing = missing;
	}

	/**
	 * Return whether the header is missing, rather than malformed.
	 * @return {@code true} if the request carries no key
	 */
	public boolean isMissing() {
		return this.missing;
	}

}
