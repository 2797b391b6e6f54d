package dev.lockstarter.interceptor;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockException;
import org.springframework.util.ClassUtils;

/**
 * Thrown at startup when an {@link dev.lockstarter.annotation.ExclusiveRequest}
 * declaration is invalid: an unparsable key expression, an unknown parameter, a bad
 * time-to-live or conflict status, or a method that a proxy cannot intercept.
 *
 * @since 0.1.0
 */
public class InvalidExclusiveRequestException extends LockException {

	private final String method;

	private final String reason;

	/**
	 * Create a new instance.
	 * @param method the annotated method
	 * @param lockName the lock name
	 * @param reason what is wrong with the declaration
	 * @param cause the underlying failure, if any
	 */
	public InvalidExclusiveRequestException(Method method, String lockName, String reason, @Nullable Throwable cause) {
		super(lockName, "Invalid @ExclusiveRequest on " + describe(method) + ": " + reason, cause);
		this.method = describe(method);
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

	static String describe(Method method) {
		StringBuilder description = new StringBuilder(ClassUtils.getQualifiedName(method.getDeclaringClass()))
			.append('.')
			.append(method.getName())
			.append('(');
		Class<?>[] types = method.getParameterTypes();
		for (int i = 0; i < types.length; i++) {
			description.append((i > 0) ? ", " : "").append(types[i].getSimpleName());
		}
		return description.append(')').toString();
	}

}
