package dev.lockstarter.core;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockException;

/**
 * Thrown to the callers that waited for a holder's result (single-flight) when the holder
 * failed with an exception that cannot be created again here: one without a public
 * {@code (String)} constructor, an {@link Error}, or a checked exception the method does
 * not declare. It names the holder's exception type and carries its HTTP status, so that
 * a web application answers the waiting callers with the holder's status.
 *
 * @since 0.1.0
 */
public class SharedFailureException extends LockException {

	private final String failureType;

	private final @Nullable String failureMessage;

	private final int status;

	/**
	 * Create a new instance.
	 * @param lockName the name of the lock
	 * @param failureType the fully qualified class name of the holder's exception
	 * @param failureMessage the message of the holder's exception, if any
	 * @param status the HTTP status of the holder's exception, or {@code 0} if it has
	 * none
	 */
	public SharedFailureException(String lockName, String failureType, @Nullable String failureMessage, int status) {
		super(lockName, "The call holding lock '" + lockName + "' failed with " + failureType
				+ ((failureMessage != null) ? ": " + failureMessage : ""));
		this.failureType = failureType;
		this.failureMessage = failureMessage;
		this.status = status;
	}

	/**
	 * Return the fully qualified class name of the holder's exception.
	 * @return the exception type
	 */
	public String getFailureType() {
		return this.failureType;
	}

	/**
	 * Return the message of the holder's exception.
	 * @return the message, or {@code null}
	 */
	public @Nullable String getFailureMessage() {
		return this.failureMessage;
	}

	/**
	 * Return the HTTP status of the holder's exception: from {@code ErrorResponse} (such
	 * as {@code ResponseStatusException}) or {@code @ResponseStatus}.
	 * @return the status, or {@code 0} if the exception has none
	 */
	public int getStatus() {
		return this.status;
	}

}
