package dev.lockstarter.interceptor;

import java.io.InputStream;
import java.io.Reader;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Spliterator;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.BaseStream;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.annotation.OnHolderFailure;
import dev.lockstarter.annotation.OnLeaseLost;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.key.MethodKeyResolver;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Parses {@link ExclusiveRequest} declarations: the key expressions, the durations, the
 * conflict status, the handling of the return type (chosen here, once per method: a
 * value, a {@link CompletionStage}, or a reactive type or Kotlin {@code suspend} function
 * through its {@link ReactiveAdapter}), and how a single-flight method shares its result.
 */
final class ExclusiveRequestAnnotationParser implements LockAnnotationParser<ExclusiveRequestAttribute> {

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

	@Override
	public Class<? extends Annotation> annotationType() {
		return ExclusiveRequest.class;
	}

	@Override
	public @Nullable ExclusiveRequestAttribute parse(Method method, @Nullable StringValueResolver valueResolver) {
		ExclusiveRequest annotation = AnnotatedElementUtils.findMergedAnnotation(method, ExclusiveRequest.class);
		if (annotation == null) {
			return null;
		}
		DeclaredMethod declared = new DeclaredMethod(method, annotation.name(), valueResolver,
				InvalidExclusiveRequestException::new);
		String name = declared.name();
		declared
			.checkInterceptable("it would run without the lock", KotlinDetector.isKotlinType(method.getDeclaringClass())
					? " (in Kotlin: open, as the kotlin-spring compiler plugin makes the members of Spring components)"
					: "");
		MethodKeyResolver keyResolver;
		try {
			keyResolver = MethodKeyResolver.create(method, name, annotation.key());
		}
		catch (IllegalArgumentException ex) {
			throw declared.invalid(String.valueOf(ex.getMessage()), ex.getCause());
		}
		Duration ttl = declared.ttl(annotation.ttl());
		Duration waitTime = declared.duration("waitTime", annotation.waitTime(), true);
		Duration retryInterval = declared.duration("retryInterval", annotation.retryInterval(), false);
		Duration holdAtLeast = declared.duration("holdAtLeast", annotation.holdAtLeast(), true);
		Duration maxHold = declared.duration("maxHold", annotation.maxHold(), false);
		int retries = annotation.retries();
		if (retries < 0 || (retries > 0 && retryInterval == null)) {
			throw declared.invalid("retries must not be negative, and needs a retryInterval when positive");
		}
		int conflictStatus = annotation.conflictStatus();
		if (conflictStatus != 0 && (conflictStatus < 400 || conflictStatus > 499)) {
			throw declared.invalid("conflictStatus must be a 4xx status such as 409 or 422, was " + conflictStatus);
		}
		Duration resultTtl = declared.duration("resultTtl", annotation.resultTtl(), false);
		LockKind kind = LockKinds.of(declared, annotation.permits(), annotation.mode());
		if (!kind.isMutex() && (annotation.eachKey() || annotation.onConflict() == OnConflict.SHARE_RESULT)) {
			throw declared.invalid(LockKinds.describe(annotation.permits(), annotation.mode())
					+ " cannot be combined with eachKey = true or onConflict = SHARE_RESULT: permits and read/write "
					+ "locks take one key, and have several holders whose results differ");
		}
		if (annotation.eachKey()) {
			checkEachKey(declared, annotation);
		}
		ReactiveAdapter reactiveAdapter = reactiveAdapter(declared);
		ResultSharing sharing = null;
		if (annotation.onConflict() == OnConflict.SHARE_RESULT) {
			// A stream of several values cannot be replayed faithfully to waiting
			// callers: its elements, their timing and a failure after some of them are
			// not one outcome that can be kept next to the lock. A single value can.
			if (reactiveAdapter != null && reactiveAdapter.isMultiValue()) {
				throw declared
					.invalid("onConflict = SHARE_RESULT is not supported for a reactive stream of several values ("
							+ method.getReturnType().getSimpleName()
							+ "): a waiting caller cannot be given a stream that another instance produced; "
							+ "return a Mono of the collected values to share them, or use REJECT or a wait time");
			}
			if (retries > 0 || holdAtLeast != null) {
				throw declared.invalid("retries and holdAtLeast cannot be combined with onConflict = SHARE_RESULT; "
						+ "use waitTime to bound the wait for the holder's result");
			}
			sharing = resultSharing(declared, resultTtl, annotation.onHolderFailure() == OnHolderFailure.TAKE_OVER);
		}
		else if (resultTtl != null || annotation.onHolderFailure() != OnHolderFailure.SHARE_FAILURE) {
			throw declared.invalid("resultTtl and onHolderFailure apply only with onConflict = SHARE_RESULT");
		}
		if (sharing != null && StringUtils.hasText(annotation.fallback())) {
			throw declared.invalid("fallback cannot be combined with onConflict = SHARE_RESULT: a conflicting call "
					+ "is answered with the holder's result");
		}
		FallbackMethod fallback = FallbackMethod.resolve(declared, annotation.fallback(),
				annotation.fallbackOnStoreFailure(), reactiveAdapter);
		boolean completionStage = CompletionStage.class.isAssignableFrom(method.getReturnType());
		checkOnLeaseLost(declared, annotation.onLeaseLost(), completionStage, sharing != null);
		return new ExclusiveRequestAttribute(kind, keyResolver, ttl, waitTime, retries, retryInterval, holdAtLeast,
				maxHold, conflictStatus, completionStage, annotation.eachKey(), reactiveAdapter, sharing,
				annotation.onLeaseLost(), fallback);
	}

	/**
	 * Reject {@code onLeaseLost = CANCEL} where the method cannot be cancelled: the work
	 * of a {@code CompletionStage} runs on threads the interceptor does not know, and a
	 * single-flight result is shared by callers that did not hold the lease.
	 */
	static void checkOnLeaseLost(DeclaredMethod declared, OnLeaseLost onLeaseLost, boolean completionStage,
			boolean sharing) {
		if (onLeaseLost != OnLeaseLost.CANCEL) {
			return;
		}
		if (completionStage) {
			throw declared.invalid("onLeaseLost = CANCEL is not supported for a method that returns a "
					+ "CompletionStage: its work runs on a thread the lock does not know, so it cannot be stopped; "
					+ "use onLeaseLost = REPORT, or do the work on the calling thread (or, for an @ExclusiveRequest, "
					+ "in a Mono)");
		}
		if (sharing) {
			throw declared.invalid("onLeaseLost = CANCEL cannot be combined with onConflict = SHARE_RESULT; "
					+ "use onLeaseLost = REPORT, or onConflict = REJECT or a wait time");
		}
	}

	/**
	 * Dispatch the return type once: the adapter of a reactive type, or {@code null} for
	 * {@code CompletionStage}s (which keep their own handling, single-flight included)
	 * and values. A reactive type that cannot be adapted fails here, at startup, rather
	 * than run without its lock.
	 */
	private static @Nullable ReactiveAdapter reactiveAdapter(DeclaredMethod declared) {
		Method method = declared.method();
		if (KotlinDetector.isSuspendingFunction(method)) {
			return suspendingAdapter(declared);
		}
		Class<?> returnType = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(returnType)) {
			// The registry adapts these too, but they have their own, richer handling
			return null;
		}
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType);
		boolean publisher = ReturnTypes.isPublisher(returnType);
		if (adapter == null && !publisher) {
			return null;
		}
		if (!ReturnTypes.REACTOR_PRESENT) {
			throw declared.invalid("a reactive return type (" + returnType.getName()
					+ ") is locked with Project Reactor, which is not on the classpath; "
					+ "add io.projectreactor:reactor-core");
		}
		if (adapter == null) {
			throw declared.invalid("the reactive return type " + returnType.getName()
					+ " is not known to Spring's ReactiveAdapterRegistry; return a Mono, a Flux or another "
					+ "registered reactive type");
		}
		return adapter;
	}

	/**
	 * A {@code suspend} function: Spring AOP hands its interceptors the function's
	 * outcome as a {@code Mono} (a {@code Flux} when it returns a {@code Flow}) and
	 * awaits what they return, so it is locked as a reactive method.
	 */
	private static ReactiveAdapter suspendingAdapter(DeclaredMethod declared) {
		Method method = declared.method();
		if (!ReturnTypes.REACTOR_PRESENT || !ReturnTypes.COROUTINES_REACTOR_PRESENT) {
			throw declared.invalid("a suspend function is locked through Spring's coroutine support, which needs "
					+ "org.jetbrains.kotlinx:kotlinx-coroutines-reactor on the classpath");
		}
		Class<?> flowType = ReturnTypes.load(FLOW_TYPE_NAME);
		boolean flow = flowType != null
				&& flowType.isAssignableFrom(MethodParameter.forExecutable(method, -1).getParameterType());
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance()
			.getAdapter(flow ? Flux.class : Mono.class);
		Assert.state(adapter != null, "Reactor's adapters are registered");
		return adapter;
	}

	private static void checkEachKey(DeclaredMethod declared, ExclusiveRequest annotation) {
		if (annotation.key().length == 0) {
			throw declared
				.invalid("eachKey = true needs key expressions, each naming a lock; without them one lock guards "
						+ "the method for all arguments");
		}
		if (annotation.onConflict() == OnConflict.SHARE_RESULT) {
			throw declared.invalid(
					"eachKey = true cannot be combined with onConflict = SHARE_RESULT: a shared result belongs to one "
							+ "key, and a call that locks several keys has no single holder whose result answers it");
		}
	}

	private static ResultSharing resultSharing(DeclaredMethod declared, @Nullable Duration resultTtl,
			boolean takeOver) {
		Method method = declared.method();
		Class<?> returnType = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(returnType) && returnType != CompletionStage.class
				&& returnType != CompletableFuture.class) {
			throw declared.invalid("a shared asynchronous result must be "
					+ "declared as CompletionStage or CompletableFuture, not " + returnType.getName());
		}
		Type resultType = sharedResultType(method);
		Class<?> resultClass = ResolvableType.forType(resultType).resolve(Object.class);
		String unshareable = unshareable(resultClass);
		if (unshareable != null) {
			throw declared.invalid("onConflict = SHARE_RESULT needs a result "
					+ "that can be serialized and sent to other application instances, and " + unshareable
					+ " cannot; return the data itself");
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
			Class<?> candidate = ReturnTypes.load(unshareable);
			if (candidate != null && candidate.isAssignableFrom(type)) {
				return "a " + candidate.getSimpleName() + " (" + type.getName() + ")";
			}
		}
		return null;
	}

}
