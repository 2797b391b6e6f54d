package dev.lockstarter.interceptor;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at startup when an {@link dev.lockstarter.annotation.ExclusiveRequest}
 * declaration is invalid: an unparsable key expression, an unknown parameter, a bad
 * time-to-live or conflict status, or a method that a proxy cannot intercept.
 *
 * @since 0.1.0
 */
public class InvalidExclusiveRequestException extends InvalidLockDeclarationException {

	/**
	 * Create a new instance.
	 * @param method the annotated method
	 * @param lockName the lock name
	 * @param reason what is wrong with the declaration
	 * @param cause the underlying failure, if any
	 */
	public InvalidExclusiveRequestException(Method method, String lockName, String reason, @Nullable Throwable cause) {
		super("@ExclusiveRequest", method, lockName, reason, cause);
	}

}
