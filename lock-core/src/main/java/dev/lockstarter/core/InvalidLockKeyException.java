package dev.lockstarter.core;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockException;

/**
 * Thrown when a lock key cannot be built: a key expression evaluated to {@code null} or a
 * blank value, or failed to evaluate. The guarded method does not run. In a web
 * application it becomes a {@code 400 Bad Request} problem response.
 *
 * @since 0.1.0
 */
public class InvalidLockKeyException extends LockException {

	/**
	 * Create a new instance.
	 * @param lockName the name of the lock
	 * @param message the detail message
	 * @param cause the evaluation failure, if any
	 */
	public InvalidLockKeyException(String lockName, String message, @Nullable Throwable cause) {
		super(lockName, message, cause);
	}

}
