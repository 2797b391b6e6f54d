package dev.lockstarter.store;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when the lock store cannot be reached or does not answer in time. The outcome of
 * the operation is unknown to the caller, so the guarded method does not run (fail
 * closed). In a web application it becomes a {@code 503 Service Unavailable} problem
 * response.
 *
 * @since 0.1.0
 */
public class LockStoreException extends LockException {

	/**
	 * Create a new instance.
	 * @param lockName the name of the lock
	 * @param message the detail message
	 * @param cause the store client's failure, or {@code null} if it gave none
	 */
	public LockStoreException(String lockName, String message, @Nullable Throwable cause) {
		super(lockName, message, cause);
	}

}
