package dev.lockstarter.core;

import dev.lockstarter.store.LockException;

/**
 * Thrown when a lease is asked for something only a holder can have, such as a fencing
 * token drawn on demand, after its lock was released, expired or taken over. Work that
 * needed it must not go on as if the lock were still held.
 *
 * @since 0.1.0
 */
public class LockNotHeldException extends LockException {

	/**
	 * Create a new instance.
	 * @param lockName the name of the lock
	 * @param message the detail message
	 */
	public LockNotHeldException(String lockName, String message) {
		super(lockName, message);
	}

}
