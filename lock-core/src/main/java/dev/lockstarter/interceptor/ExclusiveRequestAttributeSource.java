package dev.lockstarter.interceptor;

import java.io.InputStream;
import java.io.Reader;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Spliterator;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.BaseStream;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.annotation.OnHolderFailure;
import dev.lockstarter.key.MethodKeyResolver;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodClassKey;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds and parses {@link ExclusiveRequest} declarations, once per method and target
 * class, and caches the result. Parsing validates the declaration; a problem is reported
 * as an {@link InvalidExclusiveRequestException} naming the method.
 *
 * @since 0.1.0
 */
public class ExclusiveRequestAttributeSource implements EmbeddedValueResolverAware {

	private static final Object NONE = new Object();

	/** The root of reactive types, looked up by name. */
	static final String PUBLISHER_TYPE_NAME = "org.reactivestreams.Publisher";

	private static final @Nullable Class<?> PUBLISHER = loadOptional(PUBLISHER_TYPE_NAME);

	/** Whether reactive methods can be locked: they are handled with Reactor. */
	static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
			ExclusiveRequestAttributeSource.class.getClassLoader());

	/**
	 * Whether Kotlin {@code suspend} functions can be locked: Spring AOP runs them as a
	 * {@code Mono} (or a {@code Flux} for a {@code Flow}) only with
	 * kotlinx-coroutines-reactor.
	 */
	static final boolean COROUTINES_REACTOR_PRESENT = ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt",
			ExclusiveRequestAttributeSource.class.getClassLoader());

	private static final String FLOW_TYPE_NAME = "kotlinx.coroutines.flow.Flow";

	/**
	 * Results that are handles on open resources, work in progress or responses, not
	 * data.
	 */
	private static final List<Class<?>> UNSHAREABLE_TYPES = List.of(InputStream.class, Reader.class, BaseStream.class,
			Iterator.class, Spliterator.class, Future.class, Callable.class, Supplier.class);

	/** The same, among optional types that are looked up by name. */
	static final List<String> UNSHAREABLE_TYPE_NAMES = List.of("org.springframework.http.HttpEntity",
			"org.springframework.core.io.Resource",
			"org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter",
			"org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody",
			"org.springframework.web.servlet.ModelAndView",
			"org.springframework.web.context.request.async.DeferredResult",
			"org.springframework.web.context.request.async.WebAsyncTask");

	private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>(256);

	private @Nullable StringValueResolver valueResolver;

	@Override
	public void setEmbeddedValueResolver(StringValueResolver resolver) {
		this.valueResolver = resolver;
	}

	/**
	 * Return the parsed declaration that applies to a method invoked on a target class.
	 * @param method the invoked method, possibly an interface method
	 * @param targetClass the target class, or {@code null} if unknown
	 * @return the declaration, or {@code null} if the method is not annotated
	 * @throws InvalidExclusiveRequestException if the declaration is invalid
	 */
	public @Nullable ExclusiveRequestAttribute getAttribute(Method method, @Nullable Class<?> targetClass) {
		MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
		Object cached = this.cache.get(cacheKey);
		if (cached == null) {
			Method specificMethod = AopUtils.getMostSpecificMethod(method, targetClass);
			ExclusiveRequestAttribute attribute = parse(specificMethod);
			if (attribute == null && specificMethod != method) {
				attribute = parse(method);
			}
			cached = (attribute != null) ? attribute : NONE;
			this.cache.put(cacheKey, cached);
		}
		return (cached != NONE) ? (ExclusiveRequestAttribute) cached : null;
	}

	private @Nullable ExclusiveRequestAttribute parse(Method method) {
		// A static synthetic method is a compiler's helper, never a declaration: Kotlin
		// compiles the body of an open suspend function into a static '$suspendImpl' copy
		// that carries its annotations and is called only by it
		if (method.isSynthetic() && Modifier.isStatic(method.getModifiers())) {
			return null;
		}
		ExclusiveRequest annotation = AnnotatedElementUtils.findMergedAnnotation(method, ExclusiveRequest.class);
		if (annotation == null) {
			return null;
		}
		String name = StringUtils.hasText(annotation.name()) ? annotation.name().strip()
				: method.getDeclaringClass().getSimpleName() + "." + method.getName();
		checkInterceptable(method, name);
		MethodKeyResolver keyResolver;
		try {
			keyResolver = MethodKeyResolver.create(method, name, annotation.key());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidExclusiveRequestException(method, name, ex.getMessage(), ex.getCause());
		}
		Duration ttl = parseDuration(method, name, "ttl", annotation.ttl(), false);
		Duration waitTime = parseDuration(method, name, "waitTime", annotation.waitTime(), true);
		Duration retryInterval = parseDuration(method, name, "retryInterval", annotation.retryInterval(), false);
		Duration holdAtLeast = parseDuration(method, name, "holdAtLeast", annotation.holdAtLeast(), true);
		Duration maxHold = parseDuration(method, name, "maxHold", annotation.maxHold(), false);
		int retries = annotation.retries();
		if (retries < 0 || (retries > 0 && retryInterval == null)) {
			throw new InvalidExclusiveRequestException(method, name,
					"retries must not be negative, and needs a retryInterval when positive", null);
		}
		int conflictStatus = annotation.conflictStatus();
		if (conflictStatus != 0 && (conflictStatus < 400 || conflictStatus > 499)) {
			throw new InvalidExclusiveRequestException(method, name,
					"conflictStatus must be a 4xx status such as 409 or 422, was " + conflictStatus, null);
		}
		Duration resultTtl = parseDuration(method, name, "resultTtl", annotation.resultTtl(), false);
		if (annotation.eachKey()) {
			checkEachKey(method, name, annotation);
		}
		ReactiveAdapter reactiveAdapter = reactiveAdapter(method, name);
		ResultSharing sharing = null;
		if (annotation.onConflict() == OnConflict.SHARE_RESULT) {
			// A stream of several values cannot be replayed faithfully to waiting
			// callers: its elements, their timing and a failure after some of them are
			// not one outcome that can be kept next to the lock. A single value can.
			if (reactiveAdapter != null && reactiveAdapter.isMultiValue()) {
				throw new InvalidExclusiveRequestException(method, name,
						"onConflict = SHARE_RESULT is not supported for a reactive stream of several values ("
								+ method.getReturnType().getSimpleName()
								+ "): a waiting caller cannot be given a stream that another instance produced; "
								+ "return a Mono of the collected values to share them, or use REJECT or a wait time",
						null);
			}
			if (retries > 0 || holdAtLeast != null) {
				throw new InvalidExclusiveRequestException(method, name,
						"retries and holdAtLeast cannot be combined with onConflict = SHARE_RESULT; "
								+ "use waitTime to bound the wait for the holder's result",
						null);
			}
			sharing = resultSharing(method, name, resultTtl, annotation.onHolderFailure() == OnHolderFailure.TAKE_OVER);
		}
		else if (resultTtl != null || annotation.onHolderFailure() != OnHolderFailure.SHARE_FAILURE) {
			throw new InvalidExclusiveRequestException(method, name,
					"resultTtl and onHolderFailure apply only with onConflict = SHARE_RESULT", null);
		}
		return new ExclusiveRequestAttribute(keyResolver, ttl, waitTime, retries, retryInterval, holdAtLeast, maxHold,
				conflictStatus, CompletionStage.class.isAssignableFrom(method.getReturnType()), annotation.eachKey(),
				reactiveAdapter, sharing);
	}

	/**
	 * Dispatch the return type once: the adapter of a reactive type, or {@code null} for
	 * {@code CompletionStage}s (which keep their own handling, single-flight included)
	 * and values. A reactive type that cannot be adapted fails here, at startup, rather
	 * than run without its lock.
	 */
	private static @Nullable ReactiveAdapter reactiveAdapter(Method method, String name) {
		if (KotlinDetector.isSuspendingFunction(method)) {
			return suspendingAdapter(method, name);
		}
		Class<?> returnType = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(returnType)) {
			// The registry adapts these too, but they have their own, richer handling
			return null;
		}
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType);
		boolean publisher = PUBLISHER != null && PUBLISHER.isAssignableFrom(returnType);
		if (adapter == null && !publisher) {
			return null;
		}
		if (!REACTOR_PRESENT) {
			throw new InvalidExclusiveRequestException(method, name,
					"a reactive return type (" + returnType.getName()
							+ ") is locked with Project Reactor, which is not on the classpath; "
							+ "add io.projectreactor:reactor-core",
					null);
		}
		if (adapter == null) {
			throw new InvalidExclusiveRequestException(method, name,
					"the reactive return type " + returnType.getName()
							+ " is not known to Spring's ReactiveAdapterRegistry; return a Mono, a Flux or another "
							+ "registered reactive type",
					null);
		}
		return adapter;
	}

	/**
	 * A {@code suspend} function: Spring AOP hands its interceptors the function's
	 * outcome as a {@code Mono} (a {@code Flux} when it returns a {@code Flow}) and
	 * awaits what they return, so it is locked as a reactive method.
	 */
	private static ReactiveAdapter suspendingAdapter(Method method, String name) {
		if (!REACTOR_PRESENT || !COROUTINES_REACTOR_PRESENT) {
			throw new InvalidExclusiveRequestException(method, name,
					"a suspend function is locked through Spring's coroutine support, which needs "
							+ "org.jetbrains.kotlinx:kotlinx-coroutines-reactor on the classpath",
					null);
		}
		Class<?> flowType = loadOptional(FLOW_TYPE_NAME);
		boolean flow = flowType != null
				&& flowType.isAssignableFrom(MethodParameter.forExecutable(method, -1).getParameterType());
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance()
			.getAdapter(flow ? Flux.class : Mono.class);
		Assert.state(adapter != null, "Reactor's adapters are registered");
		return adapter;
	}

	private void checkEachKey(Method method, String name, ExclusiveRequest annotation) {
		if (annotation.key().length == 0) {
			throw new InvalidExclusiveRequestException(method, name,
					"eachKey = true needs key expressions, each naming a lock; without them one lock guards "
							+ "the method for all arguments",
					null);
		}
		if (annotation.onConflict() == OnConflict.SHARE_RESULT) {
			throw new InvalidExclusiveRequestException(method, name,
					"eachKey = true cannot be combined with onConflict = SHARE_RESULT: a shared result belongs to one "
							+ "key, and a call that locks several keys has no single holder whose result answers it",
					null);
		}
	}

	private ResultSharing resultSharing(Method method, String name, @Nullable Duration resultTtl, boolean takeOver) {
		Class<?> returnType = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(returnType) && returnType != CompletionStage.class
				&& returnType != CompletableFuture.class) {
			throw new InvalidExclusiveRequestException(method, name, "a shared asynchronous result must be "
					+ "declared as CompletionStage or CompletableFuture, not " + returnType.getName(), null);
		}
		Type resultType = sharedResultType(method);
		Class<?> resultClass = ResolvableType.forType(resultType).resolve(Object.class);
		String unshareable = unshareable(resultClass);
		if (unshareable != null) {
			throw new InvalidExclusiveRequestException(method, name,
					"onConflict = SHARE_RESULT needs a result "
							+ "that can be serialized and sent to other application instances, and " + unshareable
							+ " cannot; return the data itself",
					null);
		}
		boolean voidResult = isVoid(resultClass);
		return new ResultSharing(method, resultType, voidResult, resultTtl, takeOver);
	}

	/**
	 * Return the type that a method's shared result is serialized as: its generic return
	 * type, or the value type of its {@code CompletionStage} or single-value reactive
	 * type (the {@code T} of a {@code Mono<T>}; {@code Void} for a type that has no
	 * value).
	 */
	static Type sharedResultType(Method method) {
		if (KotlinDetector.isSuspendingFunction(method)) {
			// The function's declared return type, not the Object its bytecode returns;
			// Unit is no value, as Spring's coroutine support completes empty for it
			Type declared = MethodParameter.forExecutable(method, -1).getGenericParameterType();
			return declared.getTypeName().equals("kotlin.Unit") ? Void.class : declared;
		}
		Type type = method.getGenericReturnType();
		Class<?> returnType = method.getReturnType();
		boolean stage = CompletionStage.class.isAssignableFrom(returnType);
		ReactiveAdapter adapter = stage ? null : ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType);
		if (adapter != null && adapter.isNoValue()) {
			return Void.class;
		}
		if (stage || adapter != null) {
			return (type instanceof ParameterizedType parameterized) ? parameterized.getActualTypeArguments()[0]
					: Object.class;
		}
		return type;
	}

	/**
	 * Return whether a shared result type has no value: {@code void}, or {@code Void}.
	 */
	static boolean isVoid(Class<?> resultClass) {
		return resultClass == void.class || resultClass == Void.class;
	}

	private static @Nullable String unshareable(Class<?> type) {
		for (Class<?> unshareable : UNSHAREABLE_TYPES) {
			if (unshareable.isAssignableFrom(type)) {
				return "a " + unshareable.getSimpleName() + " (" + type.getName() + ")";
			}
		}
		for (String unshareable : UNSHAREABLE_TYPE_NAMES) {
			Class<?> candidate = loadOptional(unshareable);
			if (candidate != null && candidate.isAssignableFrom(type)) {
				return "a " + candidate.getSimpleName() + " (" + type.getName() + ")";
			}
		}
		return null;
	}

	private static @Nullable Class<?> loadOptional(String name) {
		try {
			return ClassUtils.forName(name, ExclusiveRequestAttributeSource.class.getClassLoader());
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
	}

	private void checkInterceptable(Method method, String name) {
		int modifiers = method.getModifiers();
		String problem = Modifier.isPrivate(modifiers) ? "private"
				: Modifier.isStatic(modifiers) ? "static" : Modifier.isFinal(modifiers) ? "final" : null;
		if (problem != null) {
			throw new InvalidExclusiveRequestException(method, name,
					"a " + problem
							+ " method cannot be intercepted by a Spring proxy, so it would run without the lock; "
							+ "make it a public, non-final instance method"
							+ (KotlinDetector.isKotlinType(method.getDeclaringClass())
									? " (in Kotlin: open, as the kotlin-spring compiler plugin makes the members of "
											+ "Spring components)"
									: ""),
					null);
		}
	}

	private @Nullable Duration parseDuration(Method method, String name, String attribute, String value,
			boolean zeroAllowed) {
		String text = (this.valueResolver != null && StringUtils.hasText(value))
				? this.valueResolver.resolveStringValue(value) : value;
		return AnnotationDurations.parse(attribute, text, zeroAllowed,
				(reason, cause) -> new InvalidExclusiveRequestException(method, name, reason, cause));
	}

}
