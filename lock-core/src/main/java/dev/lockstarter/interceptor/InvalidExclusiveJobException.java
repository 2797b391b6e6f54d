package dev.lockstarter.interceptor;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockException;

/**
 * Thrown at startup when an {@link dev.lockstarter.annotation.ExclusiveJob} declaration
 * is invalid: a bad duration, a method with parameters or a primitive return type, or a
 * method that a proxy cannot intercept.
 *
 * @since 0.1.0
 */
public class InvalidExclusiveJobException extends LockException {

	private final String method;

	private final String reason;

	/**
	 * Create a new instance.
	 * @param method the annotated method
	 * @param lockName the lock name
	 * @param reason what is wrong with the declaration
	 * @param cause the underlying failure, if any
	 */
	public InvalidExclusiveJobException(Method method, String lockName, String reason, @Nullable Throwable cause) {
		super(lockName, "Invalid @ExclusiveJob on " + InvalidExclusiveRequestException.describe(method) + ": " + reason,
				cause);
		this.method = InvalidExclusiveRequestException.describe(method);
		this.reason = reason;
	}

	/**
	 * Return the annotated method, as {@code ClassName.method(ParamType, ...)}.
	 * @return the method's description
	 */
	public String getMethod() {
		return this.method;
	}

	/**
	 * Return what is wrong with the declaration.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

}
