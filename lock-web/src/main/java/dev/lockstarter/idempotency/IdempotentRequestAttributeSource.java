package dev.lockstarter.idempotency;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.request.async.WebAsyncTask;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * Finds and parses {@link IdempotentRequest} declarations of handler methods, once per
 * method, and caches the result. Parsing validates the declaration: a retention that is
 * not a positive duration, and for Spring MVC handlers an asynchronous return type, is
 * reported as an {@link IllegalStateException} naming the method, and is not cached, so
 * that every lookup reports it. WebFlux handlers may return anything, {@code Mono},
 * {@code Flux} and Kotlin {@code suspend} functions included: the WebFlux filter keeps
 * whatever response the handler ends up writing.
 */
final class IdempotentRequestAttributeSource {

	private static final IdempotentRequestAttribute NONE = new IdempotentRequestAttribute(Duration.ZERO, false);

	private final Duration defaultRetention;

	private final boolean rejectAsynchronous;

	private final Map<Method, IdempotentRequestAttribute> cache = new ConcurrentHashMap<>();

	/**
	 * Create a new attribute source for Spring MVC handlers, which rejects asynchronous
	 * return types.
	 * @param defaultRetention the retention of methods whose declaration sets none
	 */
	IdempotentRequestAttributeSource(Duration defaultRetention) {
		this(defaultRetention, true);
	}

	/**
	 * Create a new attribute source.
	 * @param defaultRetention the retention of methods whose declaration sets none
	 * @param rejectAsynchronous whether to reject asynchronous return types, which Spring
	 * MVC handlers must not have
	 */
	IdempotentRequestAttributeSource(Duration defaultRetention, boolean rejectAsynchronous) {
		Assert.notNull(defaultRetention, "'defaultRetention' must not be null");
		this.defaultRetention = defaultRetention;
		this.rejectAsynchronous = rejectAsynchronous;
	}

	/**
	 * Return the parsed declaration of a handler method.
	 * @param method the handler method
	 * @return the declaration, or {@code null} if the method is not annotated
	 * @throws IllegalStateException if the declaration is invalid
	 */
	@Nullable IdempotentRequestAttribute getAttribute(Method method) {
		IdempotentRequestAttribute attribute = this.cache.get(method);
		if (attribute == null) {
			IdempotentRequest annotation = AnnotatedElementUtils.findMergedAnnotation(method, IdempotentRequest.class);
			attribute = (annotation != null) ? parse(method, annotation) : NONE;
			this.cache.putIfAbsent(method, attribute);
		}
		return (attribute != NONE) ? attribute : null;
	}

	private IdempotentRequestAttribute parse(Method method, IdempotentRequest annotation) {
		Class<?> returnType = method.getReturnType();
		if (this.rejectAsynchronous && isAsynchronous(returnType)) {
			throw new IllegalStateException("@IdempotentRequest method " + method.toGenericString() + " returns "
					+ returnType.getName() + ": asynchronous handlers are not supported");
		}
		if (this.rejectAsynchronous && KotlinDetector.isSuspendingFunction(method)) {
			// Spring MVC runs a suspend handler asynchronously, as it does a Mono
			throw new IllegalStateException("@IdempotentRequest method " + method.toGenericString()
					+ " is a suspend function: asynchronous handlers are not supported in Spring MVC");
		}
		Duration retention = this.defaultRetention;
		if (StringUtils.hasText(annotation.retention())) {
			try {
				retention = DurationFormatterUtils.detectAndParse(annotation.retention().strip());
			}
			catch (RuntimeException ex) {
				throw new IllegalStateException("@IdempotentRequest method " + method.toGenericString()
						+ " has an invalid retention '" + annotation.retention() + "'", ex);
			}
			if (retention.isZero() || retention.isNegative()) {
				throw new IllegalStateException("@IdempotentRequest method " + method.toGenericString()
						+ " has a retention that is not positive: '" + annotation.retention() + "'");
			}
		}
		return new IdempotentRequestAttribute(retention, annotation.required());
	}

	private static boolean isAsynchronous(Class<?> type) {
		return Callable.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)
				|| DeferredResult.class.isAssignableFrom(type) || WebAsyncTask.class.isAssignableFrom(type)
				|| ResponseBodyEmitter.class.isAssignableFrom(type)
				|| StreamingResponseBody.class.isAssignableFrom(type)
				|| ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null;
	}

}
