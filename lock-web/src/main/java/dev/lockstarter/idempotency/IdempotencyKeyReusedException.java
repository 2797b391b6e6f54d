package dev.lockstarter.idempotency;

import dev.lockstarter.store.LockException;

/**
 * Thrown when a request carries the {@code Idempotency-Key} of an earlier request whose
 * payload (method, path, query, content type or body) was different. In a web application
 * it becomes a {@code 422 Unprocessable Content} problem response.
 *
 * @since 0.1.0
 */
public class IdempotencyKeyReusedException extends LockException {

	/**
	 * Create a new instance.
	 */
	public IdempotencyKeyReusedException() {
		super(IdempotencyPolicy.LOCK_NAME,
				"The idempotency key was already used for a request with a different payload");
	}

}
