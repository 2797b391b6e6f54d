package dev.lockstarter.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.idempotency.IdempotencyFilter;
import dev.lockstarter.idempotency.IdempotentRequestInterceptor;
import dev.lockstarter.idempotency.IdempotentRequestListener;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of {@link dev.lockstarter.idempotency.IdempotentRequest} handling
 * in servlet web applications: the {@link IdempotencyFilter}, the
 * {@link IdempotentRequestInterceptor} and a startup check that the lock store keeps
 * results when a handler is annotated.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "lock.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "lock.idempotency.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBean(LockOperations.class)
public final class LockIdempotencyAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	IdempotentRequestInterceptor idempotentRequestInterceptor(ObjectProvider<LockOperations> locks,
			LockProperties properties, ObjectProvider<IdempotentRequestListener> listeners) {
		LockProperties.Idempotency idempotency = properties.getIdempotency();
		IdempotentRequestInterceptor interceptor = new IdempotentRequestInterceptor(locks::getObject,
				properties::toDefaultOptions, idempotency.getRetention());
		interceptor.setReplayedHeaders(idempotency.getReplayedHeaders());
		interceptor.setStoreServerErrors(idempotency.isStoreServerErrors());
		interceptor.setMaxKeyLength(idempotency.getMaxKeyLength());
		interceptor.setMaxBodySize(idempotency.getMaxBodySize().toBytes());
		List<IdempotentRequestListener> all = listeners.orderedStream().toList();
		if (!all.isEmpty()) {
			interceptor.setListener((handler, outcome) -> all.forEach((l) -> l.requestHandled(handler, outcome)));
		}
		return interceptor;
	}

	@Bean
	@ConditionalOnMissingBean
	IdempotencyFilter idempotencyFilter() {
		return new IdempotencyFilter();
	}

	@Bean
	WebMvcConfigurer idempotentRequestWebMvcConfigurer(IdempotentRequestInterceptor interceptor) {
		return new WebMvcConfigurer() {

			@Override
			public void addInterceptors(InterceptorRegistry registry) {
				// First, so that a replay or a rejection skips every other interceptor.
				registry.addInterceptor(interceptor).order(Ordered.HIGHEST_PRECEDENCE);
			}

		};
	}

	@Bean
	static IdempotentHandlerChecker idempotentHandlerChecker(
			ObjectProvider<RequestMappingHandlerMapping> handlerMappings,
			ObjectProvider<IdempotentRequestInterceptor> interceptor, ObjectProvider<LockOperations> locks,
			ObjectProvider<LockProperties> properties) {
		return new IdempotentHandlerChecker(handlerMappings, interceptor, locks, properties);
	}

	/**
	 * Checks every {@code @IdempotentRequest} handler method once the application's beans
	 * exist: its declaration must be valid, and the lock store must keep results.
	 */
	static final class IdempotentHandlerChecker implements SmartInitializingSingleton {

		private final ObjectProvider<RequestMappingHandlerMapping> handlerMappings;

		private final ObjectProvider<IdempotentRequestInterceptor> interceptor;

		private final ObjectProvider<LockOperations> locks;

		private final ObjectProvider<LockProperties> properties;

		IdempotentHandlerChecker(ObjectProvider<RequestMappingHandlerMapping> handlerMappings,
				ObjectProvider<IdempotentRequestInterceptor> interceptor, ObjectProvider<LockOperations> locks,
				ObjectProvider<LockProperties> properties) {
			this.handlerMappings = handlerMappings;
			this.interceptor = interceptor;
			this.locks = locks;
			this.properties = properties;
		}

		@Override
		public void afterSingletonsInstantiated() {
			IdempotentRequestInterceptor interceptor = this.interceptor.getObject();
			List<String> idempotent = new ArrayList<>();
			this.handlerMappings.orderedStream()
				.flatMap((mapping) -> mapping.getHandlerMethods().values().stream())
				.distinct()
				.filter(interceptor::isIdempotent)
				.map(HandlerMethod::getShortLogMessage)
				.sorted()
				.forEach(idempotent::add);
			if (!idempotent.isEmpty() && !this.locks.getObject().supportsResults()) {
				LockProperties.Store store = this.properties.getObject().getStore();
				throw new InvalidConfigurationPropertyValueException("lock.store",
						(store != null) ? store.name().toLowerCase(Locale.ROOT) : "(not set)",
						"The lock store keeps no results, which @IdempotentRequest needs (on " + idempotent.get(0)
								+ ((idempotent.size() > 1) ? " and " + (idempotent.size() - 1) + " more" : "")
								+ "). Choose a store that keeps results, such as redis or memory.");
			}
		}

	}

}
