package dev.lockstarter.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.LockOptions;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * One annotated method while its declaration is parsed: its lock name, the resolution of
 * placeholders and durations, and the checks and failures that every lock annotation
 * shares, each failure of the annotation's own exception type.
 */
final class DeclaredMethod {

	private final Method method;

	private final String name;

	private final @Nullable StringValueResolver valueResolver;

	private final Invalid invalid;

	/**
	 * @param declaredName the annotation's {@code name}; when blank, the lock is named
	 * {@code SimpleClassName.method}
	 */
	DeclaredMethod(Method method, String declaredName, @Nullable StringValueResolver valueResolver, Invalid invalid) {
		this.method = method;
		this.name = StringUtils.hasText(declaredName) ? declaredName.strip()
				: method.getDeclaringClass().getSimpleName() + "." + method.getName();
		this.valueResolver = valueResolver;
		this.invalid = invalid;
	}

	Method method() {
		return this.method;
	}

	String name() {
		return this.name;
	}

	/** Resolve the placeholders of an attribute value. */
	@Nullable String resolve(String value) {
		return (this.valueResolver != null && StringUtils.hasText(value)) ? this.valueResolver.resolveStringValue(value)
				: value;
	}

	/**
	 * Parse the {@code ttl} attribute, at least {@link LockOptions#MIN_TTL}; {@code null}
	 * when it is empty.
	 */
	@Nullable Duration ttl(String value) {
		Duration ttl = duration("ttl", value, false);
		if (ttl != null && ttl.compareTo(LockOptions.MIN_TTL) < 0) {
			throw invalid("ttl must be at least 1ms, the shortest time-to-live that a lock store keeps, was '"
					+ resolve(value) + "'");
		}
		return ttl;
	}

	/** Parse a duration attribute; {@code null} when it is empty. */
	@Nullable Duration duration(String attribute, String value, boolean zeroAllowed) {
		return AnnotationDurations.parse(attribute, resolve(value), zeroAllowed, this::invalid);
	}

	InvalidLockDeclarationException invalid(String reason) {
		return invalid(reason, null);
	}

	InvalidLockDeclarationException invalid(String reason, @Nullable Throwable cause) {
		return this.invalid.create(this.method, this.name, reason, cause);
	}

	/**
	 * Refuse a private, static or final method, which a Spring proxy cannot intercept.
	 * @param consequence what would happen, such as {@code "it would run without the
	 * lock"}
	 * @param advice what follows the advice to make it a public, non-final instance
	 * method
	 */
	void checkInterceptable(String consequence, String advice) {
		int modifiers = this.method.getModifiers();
		String problem = Modifier.isPrivate(modifiers) ? "private"
				: Modifier.isStatic(modifiers) ? "static" : Modifier.isFinal(modifiers) ? "final" : null;
		if (problem != null) {
			throw invalid("a " + problem + " method cannot be intercepted by a Spring proxy, so " + consequence
					+ "; make it a public, non-final instance method" + advice);
		}
	}

	/** Creates the annotation's own failure. */
	@FunctionalInterface
	interface Invalid {

		InvalidLockDeclarationException create(Method method, String lockName, String reason,
				@Nullable Throwable cause);

	}

}
