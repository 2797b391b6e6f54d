package dev.lockstarter.interceptor;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at startup when an {@link dev.lockstarter.annotation.ExclusiveJob} declaration
 * is invalid: a bad duration, a method with parameters or a primitive return type, or a
 * method that a proxy cannot intercept.
 *
 * @since 0.1.0
 */
public class InvalidExclusiveJobException extends InvalidLockDeclarationException {

	/**
	 * Create a new instance.
	 * @param method the annotated method
	 * @param lockName the lock name
	 * @param reason what is wrong with the declaration
	 * @param cause the underlying failure, if any
	 */
	public InvalidExclusiveJobException(Method method, String lockName, String reason, @Nullable Throwable cause) {
		super("@ExclusiveJob", method, lockName, reason, cause);
	}

}
