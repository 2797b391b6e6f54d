package dev.lockstarter.interceptor;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Internal;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds and parses the declarations of one lock annotation, once per method and target
 * class, and caches the result (its absence included). The most specific method of the
 * target class is looked at first, then the invoked method (an interface's or a
 * superclass's). Parsing, which validates the declaration, is the annotation's parser's
 * work; a problem is reported as an {@link InvalidLockDeclarationException} naming the
 * method.
 *
 * @param <A> the type of the parsed declaration
 * @since 0.1.0
 */
@Internal
public abstract class LockAttributeSource<A extends LockAttribute> implements EmbeddedValueResolverAware {

	private static final Object NONE = new Object();

	private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>(64);

	private final LockAnnotationParser<A> parser;

	private @Nullable StringValueResolver valueResolver;

	LockAttributeSource(LockAnnotationParser<A> parser) {
		this.parser = parser;
	}

	@Override
	public void setEmbeddedValueResolver(StringValueResolver resolver) {
		this.valueResolver = resolver;
	}

	/**
	 * Return the parsed declaration that applies to a method invoked on a target class.
	 * @param method the invoked method, possibly an interface method
	 * @param targetClass the target class, or {@code null} if unknown
	 * @return the declaration, or {@code null} if the method is not annotated
	 * @throws InvalidLockDeclarationException if the declaration is invalid
	 */
	@SuppressWarnings("unchecked")
	public @Nullable A getAttribute(Method method, @Nullable Class<?> targetClass) {
		MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
		Object cached = this.cache.get(cacheKey);
		if (cached == null) {
			Method specificMethod = AopUtils.getMostSpecificMethod(method, targetClass);
			A attribute = parse(specificMethod);
			if (attribute == null && specificMethod != method) {
				attribute = parse(method);
			}
			cached = (attribute != null) ? attribute : NONE;
			this.cache.put(cacheKey, cached);
		}
		return (cached != NONE) ? (A) cached : null;
	}

	/**
	 * Return the declaration that applies to an invocation, on its target's class.
	 */
	@Nullable A getAttribute(MethodInvocation invocation) {
		Object target = invocation.getThis();
		return getAttribute(invocation.getMethod(), (target != null) ? AopUtils.getTargetClass(target) : null);
	}

	/**
	 * Return whether a class may carry the annotation at all.
	 * @param type the class
	 * @return {@code false} if no method of the class can be annotated
	 */
	public boolean isCandidateClass(Class<?> type) {
		return AnnotationUtils.isCandidateClass(type, this.parser.annotationType());
	}

	/**
	 * Return the annotation whose declarations this source parses.
	 */
	Class<? extends Annotation> annotationType() {
		return this.parser.annotationType();
	}

	private @Nullable A parse(Method method) {
		// A static synthetic method is a compiler's helper, never a declaration: Kotlin
		// compiles the body of an open suspend function into a static '$suspendImpl' copy
		// that carries its annotations and is called only by it
		if (method.isSynthetic() && Modifier.isStatic(method.getModifiers())) {
			return null;
		}
		return this.parser.parse(method, this.valueResolver);
	}

}
