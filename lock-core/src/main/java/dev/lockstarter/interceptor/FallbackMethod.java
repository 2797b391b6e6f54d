package dev.lockstarter.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.store.LockException;
import dev.lockstarter.store.LockStoreException;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ResolvableType;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * The fallback of an {@link dev.lockstarter.annotation.ExclusiveRequest} method
 * ({@code fallback = "name"}): found and type-checked once, while the declaration is
 * parsed, and invoked on the bean, with the call's arguments and optionally the failure,
 * where the call would otherwise signal a {@link LockConflictException} (or, with
 * {@code fallbackOnStoreFailure}, a {@link LockStoreException}).
 * <p>
 * A fallback takes the annotated method's parameters, each assignable from the method's,
 * optionally followed by one that receives the failure. Its return type is assignable to
 * the method's; for a {@code CompletionStage} or a reactive type, the container types are
 * assignable and the value type is assignable to the method's value type, as the value is
 * handed on unchanged. A Kotlin {@code suspend} function's fallback is a {@code suspend}
 * function whose declared return type is assignable to the method's.
 */
final class FallbackMethod {

	private static final String CONTINUATION_TYPE_NAME = "kotlin.coroutines.Continuation";

	private final Method method;

	private final boolean takesFailure;

	private final boolean suspending;

	private final boolean onStoreFailure;

	private FallbackMethod(Method method, boolean takesFailure, boolean suspending, boolean onStoreFailure) {
		this.method = method;
		this.takesFailure = takesFailure;
		this.suspending = suspending;
		this.onStoreFailure = onStoreFailure;
	}

	/**
	 * Find and check the fallback that a declaration names.
	 * @param declared the annotated method
	 * @param name the {@code fallback} attribute, empty for none
	 * @param onStoreFailure the {@code fallbackOnStoreFailure} attribute
	 * @param reactiveAdapter the adapter of the method's reactive return type, if any
	 * @return the fallback, or {@code null} when the declaration names none
	 * @throws InvalidLockDeclarationException when the fallback is missing, ambiguous or
	 * incompatible
	 */
	static @Nullable FallbackMethod resolve(DeclaredMethod declared, String name, boolean onStoreFailure,
			@Nullable ReactiveAdapter reactiveAdapter) {
		String attribute = "fallback = \"" + name + "\"";
		if (!StringUtils.hasText(name)) {
			if (onStoreFailure) {
				throw declared.invalid("fallbackOnStoreFailure = true needs a fallback method; name it with fallback");
			}
			return null;
		}
		Method annotated = declared.method();
		Class<?> declaringClass = annotated.getDeclaringClass();
		List<Method> named = Arrays.asList(ReflectionUtils.getUniqueDeclaredMethods(declaringClass,
				(candidate) -> candidate.getName().equals(name) && !candidate.isBridge() && !candidate.isSynthetic()));
		boolean suspending = KotlinDetector.isSuspendingFunction(annotated);
		String expected = expectedSignature(annotated, suspending, onStoreFailure);
		if (named.isEmpty()) {
			throw declared.invalid(
					attribute + " names no method of " + declaringClass.getName() + "; declare " + expected + " there");
		}
		List<FallbackMethod> matching = new ArrayList<>();
		List<String> mismatches = new ArrayList<>();
		for (Method candidate : named) {
			String mismatch = parameterMismatch(annotated, candidate, onStoreFailure);
			if (mismatch == null) {
				matching.add(new FallbackMethod(candidate,
						declaredParameterCount(candidate) > declaredParameterCount(annotated), suspending,
						onStoreFailure));
			}
			else {
				mismatches.add(InvalidLockDeclarationException.describe(candidate) + " " + mismatch);
			}
		}
		if (matching.isEmpty()) {
			throw declared.invalid(attribute + " has no method that takes the parameters it needs: "
					+ String.join("; ", mismatches) + "; declare " + expected);
		}
		if (matching.size() > 1) {
			throw declared.invalid(attribute + " is ambiguous: "
					+ matching.stream()
						.map((fallback) -> InvalidLockDeclarationException.describe(fallback.method))
						.collect(Collectors.joining(" and "))
					+ " both fit; keep one of them or rename the other");
		}
		FallbackMethod fallback = matching.get(0);
		String returnMismatch = returnMismatch(annotated, fallback.method, suspending, reactiveAdapter);
		if (returnMismatch != null) {
			throw declared.invalid(attribute + " cannot answer for this method: "
					+ InvalidLockDeclarationException.describe(fallback.method) + " " + returnMismatch);
		}
		if (Modifier.isStatic(fallback.method.getModifiers())) {
			throw declared.invalid(
					attribute + " names a static method, " + InvalidLockDeclarationException.describe(fallback.method)
							+ "; make it an instance method of the bean");
		}
		return fallback;
	}

	/**
	 * Return the fallback method, as found in the bean's class.
	 * @return the method
	 */
	Method method() {
		return this.method;
	}

	/**
	 * Return whether the fallback answers a failure: every conflict, and a store failure
	 * when it was declared with {@code fallbackOnStoreFailure = true}.
	 */
	boolean answers(Throwable failure) {
		return (failure instanceof LockConflictException)
				|| (this.onStoreFailure && failure instanceof LockStoreException);
	}

	/**
	 * Invoke the fallback on the bean behind the proxy, with the call's arguments and, if
	 * it takes it, the failure; its failure propagates unchanged.
	 * @return the fallback's result: for a {@code suspend} function, the publisher of its
	 * outcome, as Spring AOP hands it to interceptors
	 */
	@Nullable Object invoke(MethodInvocation invocation, LockException failure) throws Throwable {
		Object target = invocation.getThis();
		Assert.state(target != null, "A fallback is invoked on the bean of the call");
		return AopUtils.invokeJoinpointUsingReflection(target, this.method,
				arguments(invocation.getArguments(), failure));
	}

	private @Nullable Object[] arguments(@Nullable Object[] arguments, LockException failure) {
		if (!this.takesFailure) {
			return arguments;
		}
		@Nullable Object[] withFailure = Arrays.copyOf(arguments, arguments.length + 1);
		if (this.suspending) {
			// The continuation stays last, as the compiled suspend function takes it
			withFailure[arguments.length - 1] = failure;
			withFailure[arguments.length] = arguments[arguments.length - 1];
		}
		else {
			withFailure[arguments.length] = failure;
		}
		return withFailure;
	}

	/**
	 * Why a candidate does not take the method's parameters (and, optionally, the
	 * failure); {@code null} when it does.
	 */
	private static @Nullable String parameterMismatch(Method annotated, Method candidate, boolean onStoreFailure) {
		int count = declaredParameterCount(annotated);
		int candidateCount = declaredParameterCount(candidate);
		if (candidateCount != count && candidateCount != count + 1) {
			return "takes " + candidateCount + " parameter(s), not " + count + " or " + (count + 1);
		}
		for (int i = 0; i < count; i++) {
			ResolvableType parameter = ResolvableType.forMethodParameter(annotated, i);
			ResolvableType candidateParameter = ResolvableType.forMethodParameter(candidate, i);
			if (!isAssignable(candidateParameter, parameter)) {
				return "takes " + candidateParameter + " as parameter " + (i + 1) + ", which cannot receive the "
						+ parameter + " of the method";
			}
		}
		if (candidateCount > count) {
			Class<?> failureType = candidate.getParameterTypes()[count];
			if (!failureType.isAssignableFrom(LockConflictException.class)) {
				return "takes a " + failureType.getSimpleName() + " as its last parameter, which cannot receive the "
						+ "LockConflictException";
			}
			if (onStoreFailure && !failureType.isAssignableFrom(LockStoreException.class)) {
				return "takes a " + failureType.getSimpleName() + " as its last parameter, which cannot receive "
						+ "the LockStoreException of fallbackOnStoreFailure = true; declare it as a LockException";
			}
		}
		return null;
	}

	/**
	 * Why a fallback's result cannot be the method's; {@code null} when it can.
	 */
	private static @Nullable String returnMismatch(Method annotated, Method fallback, boolean suspending,
			@Nullable ReactiveAdapter reactiveAdapter) {
		if (suspending != KotlinDetector.isSuspendingFunction(fallback)) {
			return suspending ? "is not a suspend function, as the method is"
					: "is a suspend function, and the " + "method is not";
		}
		ResolvableType returnType = ResolvableType.forMethodParameter(MethodParameter.forExecutable(annotated, -1));
		ResolvableType fallbackType = ResolvableType.forMethodParameter(MethodParameter.forExecutable(fallback, -1));
		boolean container = !suspending
				&& (reactiveAdapter != null || CompletionStage.class.isAssignableFrom(annotated.getReturnType()));
		if (container) {
			// The value is handed on as it is: a Mono<String> answers for a
			// Mono<CharSequence>
			Class<?> containerType = returnType.toClass();
			if (!containerType.isAssignableFrom(fallbackType.toClass()) || (returnType.hasGenerics()
					&& !returnType.getGeneric(0).isAssignableFrom(fallbackType.as(containerType).getGeneric(0)))) {
				return "returns " + fallbackType + ", not a " + returnType;
			}
			return null;
		}
		return isAssignable(returnType, fallbackType) ? null
				: "returns " + fallbackType + ", which is not assignable to the method's " + returnType;
	}

	/**
	 * Whether a value of one type can be assigned to the other, as reflection assigns it:
	 * generics as Java checks them, a primitive and its wrapper interchangeably.
	 */
	private static boolean isAssignable(ResolvableType to, ResolvableType from) {
		Class<?> toClass = to.toClass();
		Class<?> fromClass = from.toClass();
		return (toClass.isPrimitive() || fromClass.isPrimitive()) ? ClassUtils.isAssignable(toClass, fromClass)
				: to.isAssignableFrom(from);
	}

	/** The parameters of a method as declared in source: a continuation is not one. */
	private static int declaredParameterCount(Method method) {
		Class<?>[] types = method.getParameterTypes();
		return (types.length > 0 && types[types.length - 1].getName().equals(CONTINUATION_TYPE_NAME)) ? types.length - 1
				: types.length;
	}

	private static String expectedSignature(Method annotated, boolean suspending, boolean onStoreFailure) {
		StringBuilder signature = new StringBuilder(suspending ? "a suspend function (" : "a method (");
		int count = declaredParameterCount(annotated);
		for (int i = 0; i < count; i++) {
			signature.append((i > 0) ? ", " : "").append(ResolvableType.forMethodParameter(annotated, i));
		}
		return signature.append(") or (")
			.append((count > 0) ? "..., " : "")
			.append(onStoreFailure ? "LockException" : "LockConflictException")
			.append(") returning ")
			.append(suspending ? ResolvableType.forMethodParameter(MethodParameter.forExecutable(annotated, -1))
					: ResolvableType.forMethodReturnType(annotated))
			.toString();
	}

}
