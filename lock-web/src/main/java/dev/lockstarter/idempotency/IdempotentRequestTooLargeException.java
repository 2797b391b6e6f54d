package dev.lockstarter.idempotency;

import dev.lockstarter.store.LockException;

/**
 * Thrown when the body of a request to an {@link IdempotentRequest} handler is larger
 * than the configured limit, so it cannot be buffered to compare it with a retry's. In a
 * web application it becomes a {@code 413 Content Too Large} problem response.
 *
 * @since 0.1.0
 */
public class IdempotentRequestTooLargeException extends LockException {

	private final long maxBodySize;

	/**
	 * Create a new instance.
	 * @param maxBodySize the largest body accepted, in bytes
	 */
	public IdempotentRequestTooLargeException(long maxBodySize) {
		super(IdempotencyPolicy.LOCK_NAME,
				"The body of an idempotent request must not exceed " + maxBodySize + " bytes");
		this.maxBodySize = maxBodySize;
	}

	/**
	 * Return the largest body accepted.
	 * @return the limit, in bytes
	 */
	public long getMaxBodySize() {
		return this.maxBodySize;
	}

}
