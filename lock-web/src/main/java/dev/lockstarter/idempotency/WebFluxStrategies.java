package dev.lockstarter.idempotency;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.context.ApplicationContext;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.reactive.DispatchExceptionHandler;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResultHandler;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;

/**
 * What {@link IdempotentRequestWebFilter} finds once in the application context: the
 * annotated handler methods, how rejections are answered, and the codecs that read form
 * and multipart data.
 *
 * @param handlers the lookup of annotated handler methods
 * @param rejections the dispatcher of rejections
 * @param codecs the application's codecs, or default ones
 */
record WebFluxStrategies(IdempotentHandlerLookup handlers, RejectionDispatcher rejections,
		ServerCodecConfigurer codecs) {

	/**
	 * Find the strategies in an application context.
	 * @param context the context, or {@code null} outside one: then no handler is
	 * idempotent
	 * @param attributeSource the declarations of handler methods
	 * @return the strategies
	 * @throws IllegalStateException if a declaration is invalid
	 */
	static WebFluxStrategies of(@Nullable ApplicationContext context,
			IdempotentRequestAttributeSource attributeSource) {
		if (context == null) {
			return new WebFluxStrategies(new IdempotentHandlerLookup(List.of(), attributeSource),
					new RejectionDispatcher(List.of(), List.of()), ServerCodecConfigurer.create());
		}
		IdempotentHandlerLookup handlers = new IdempotentHandlerLookup(
				beans(context, RequestMappingHandlerMapping.class), attributeSource);
		List<DispatchExceptionHandler> exceptionHandlers = beans(context, HandlerAdapter.class).stream()
			.filter(DispatchExceptionHandler.class::isInstance)
			.map(DispatchExceptionHandler.class::cast)
			.toList();
		RejectionDispatcher rejections = new RejectionDispatcher(exceptionHandlers,
				beans(context, HandlerResultHandler.class));
		ServerCodecConfigurer codecs = context.getBeanProvider(ServerCodecConfigurer.class)
			.getIfUnique(ServerCodecConfigurer::create);
		return new WebFluxStrategies(handlers, rejections, codecs);
	}

	private static <T> List<T> beans(ApplicationContext context, Class<T> type) {
		List<T> beans = new ArrayList<>(
				BeanFactoryUtils.beansOfTypeIncludingAncestors(context, type, true, false).values());
		AnnotationAwareOrderComparator.sort(beans);
		return List.copyOf(beans);
	}

}
