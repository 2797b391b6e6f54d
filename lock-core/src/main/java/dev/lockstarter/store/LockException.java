package dev.lockstarter.store;

import org.jspecify.annotations.Nullable;

/**
 * Root of every exception raised by the lock starter. Each exception names the lock it
 * concerns; none of them ever carries an owner token.
 *
 * @since 0.1.0
 */
public abstract class LockException extends RuntimeException {

	private final String lockName;

	protected LockException(String lockName, String message) {
		this(lockName, message, null);
	}

	protected LockException(String lockName, String message, @Nullable Throwable cause) {
		super(LogSafe.text(message), cause);
		this.lockName = lockName;
	}

	/**
	 * Return the name of the lock: the {@code name} of an {@code @ExclusiveRequest}, or
	 * the key given to the programmatic lock API.
	 * @return the lock name
	 */
	public String getLockName() {
		return this.lockName;
	}

}
