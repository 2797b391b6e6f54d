package dev.lockstarter.core;

import dev.lockstarter.store.LockException;

/**
 * Thrown to the caller of a method declared with
 * {@link dev.lockstarter.annotation.OnLeaseLost#CANCEL} whose lease was found lost while
 * it ran: the method was interrupted or cancelled, and its result, if it produced one, is
 * dropped. The work may have been partly done, and another holder may be running it.
 *
 * @since 0.1.0
 */
public class LeaseLostException extends LockException {

	private final String key;

	/**
	 * Create a new instance.
	 * @param lockName the name of the lock
	 * @param key the key of the lost lease
	 * @param reason why the lease is considered lost
	 */
	public LeaseLostException(String lockName, String key, String reason) {
		super(lockName, "Lock '" + lockName + "' on key '" + key + "' was lost while its method ran (" + reason
				+ "); the method was cancelled");
		this.key = key;
	}

	/**
	 * Return the key of the lost lease, which may carry user data: keep it out of meters
	 * and traces.
	 * @return the key, as given to {@link LockOperations}
	 */
	public String getKey() {
		return this.key;
	}

}
