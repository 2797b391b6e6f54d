package dev.lockstarter.core;

import dev.lockstarter.store.LockException;

/**
 * Thrown when a thread waiting for a lock is interrupted. Nothing is held: the wait ends
 * without a lease. The thread's interrupt flag is set again before this is thrown.
 *
 * @since 0.1.0
 */
public class LockWaitInterruptedException extends LockException {

	/**
	 * Create a new instance.
	 * @param lockName the name of the lock
	 * @param cause the interruption
	 */
	public LockWaitInterruptedException(String lockName, InterruptedException cause) {
		super(lockName, "Interrupted while waiting for lock '" + lockName + "'", cause);
	}

}
