package dev.lockstarter.interceptor;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockException;
import org.springframework.util.ClassUtils;

/**
 * Thrown at startup when a lock annotation on a method is invalid: a bad duration or key
 * expression, a return type the annotation cannot handle, or a method that a proxy cannot
 * intercept. Each annotation has its own subclass.
 *
 * @since 0.1.0
 */
public abstract class InvalidLockDeclarationException extends LockException {

	private final String annotation;

	private final String method;

	private final String reason;

	/**
	 * Create a new instance.
	 * @param annotation the annotation, as written in code, such as
	 * {@code "@ExclusiveRequest"}
	 * @param method the annotated method
	 * @param lockName the lock name
	 * @param reason what is wrong with the declaration
	 * @param cause the underlying failure, if any
	 */
	protected InvalidLockDeclarationException(String annotation, Method method, String lockName, String reason,
			@Nullable Throwable cause) {
		super(lockName, "Invalid " + annotation + " on " + describe(method) + ": " + reason, cause);
		this.annotation = annotation;
		this.method = describe(method);
		this.reason = reason;
	}

	/**
	 * Return the annotation, as written in code, such as {@code "@ExclusiveRequest"}.
	 * @return the annotation
	 */
	public String getAnnotation() {
		return this.annotation;
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

	/**
	 * Describe a method as {@code ClassName.method(ParamType, ...)}, with the declaring
	 * class's qualified name and the parameters' simple names.
	 */
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
