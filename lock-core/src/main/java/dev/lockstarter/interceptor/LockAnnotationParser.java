package dev.lockstarter.interceptor;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import org.springframework.util.StringValueResolver;

/**
 * Parses one lock annotation into its attribute, validating it: the one place that knows
 * what the annotation's attributes mean.
 *
 * @param <A> the type of the parsed declaration
 */
interface LockAnnotationParser<A extends LockAttribute> {

	/**
	 * Return the annotation this parser reads, to skip classes that cannot carry it.
	 */
	Class<? extends Annotation> annotationType();

	/**
	 * Parse the annotation on a method.
	 * @param method the method, never a compiler's static synthetic helper
	 * @param valueResolver the resolver of placeholders in attribute values, if any
	 * @return the declaration, or {@code null} if the method is not annotated
	 * @throws InvalidLockDeclarationException if the declaration is invalid
	 */
	@Nullable A parse(Method method, @Nullable StringValueResolver valueResolver);

}
