package dev.lockstarter.autoconfigure;

import java.util.List;

import dev.lockstarter.core.Internal;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.ReactiveLockOperations;
import dev.lockstarter.idempotency.IdempotentRequestListener;
import dev.lockstarter.idempotency.IdempotentRequestWebFilter;
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
import org.springframework.web.method.HandlerMethod;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of {@link dev.lockstarter.idempotency.IdempotentRequest} handling
 * in reactive (WebFlux) web applications: the {@link IdempotentRequestWebFilter}, with
 * the same {@code lock.idempotency.*} properties as in servlet applications, and a
 * startup check that the lock store keeps results when a handler is annotated.
 * {@code lock.idempotency.transactional=true} needs a servlet application, whose request
 * thread holds the transaction: a reactive application with it fails at startup.
 *
 * @since 0.1.0
 */
@Internal
@AutoConfiguration(after = { LockAutoConfiguration.class, LockReactiveAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "lock.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "lock.idempotency.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(name = { "org.springframework.web.reactive.DispatcherHandler", "reactor.core.publisher.Mono",
		"dev.lockstarter.idempotency.IdempotentRequestWebFilter" })
@ConditionalOnBean({ LockOperations.class, ReactiveLockOperations.class })
public final class LockReactiveIdempotencyAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	IdempotentRequestWebFilter reactiveIdempotencyFilter(ObjectProvider<ReactiveLockOperations> reactiveLocks,
			LockProperties properties, ObjectProvider<IdempotentRequestListener> listeners) {
		IdempotencyProperties idempotency = properties.getIdempotency();
		IdempotentRequestWebFilter filter = new IdempotentRequestWebFilter(reactiveLocks::getObject,
				new DefaultLockOptions(properties), idempotency.getRetention());
		filter.setReplayedHeaders(idempotency.getReplayedHeaders());
		filter.setStoreServerErrors(idempotency.isStoreServerErrors());
		filter.setMaxKeyLength(idempotency.getMaxKeyLength());
		filter.setMaxBodySize(idempotency.getMaxBodySize().toBytes());
		filter.setMaxResponseSize(idempotency.getMaxResponseSize().toBytes());
		List<IdempotentRequestListener> all = listeners.orderedStream().toList();
		if (!all.isEmpty()) {
			filter.setListener((handler, outcome) -> all.forEach((l) -> l.requestHandled(handler, outcome)));
		}
		return filter;
	}

	@Bean
	static ReactiveIdempotentHandlerChecker reactiveIdempotentHandlerChecker(
			ObjectProvider<IdempotentRequestWebFilter> filter, ObjectProvider<LockOperations> locks,
			ObjectProvider<LockProperties> properties) {
		return new ReactiveIdempotentHandlerChecker(filter, locks, properties);
	}

	/**
	 * Checks the configuration once the application's beans exist: no transactional mode,
	 * every {@code @IdempotentRequest} declaration valid, and a lock store that keeps
	 * results if a handler is annotated.
	 */
	static final class ReactiveIdempotentHandlerChecker implements SmartInitializingSingleton {

		private final ObjectProvider<IdempotentRequestWebFilter> filter;

		private final ObjectProvider<LockOperations> locks;

		private final ObjectProvider<LockProperties> properties;

		ReactiveIdempotentHandlerChecker(ObjectProvider<IdempotentRequestWebFilter> filter,
				ObjectProvider<LockOperations> locks, ObjectProvider<LockProperties> properties) {
			this.filter = filter;
			this.locks = locks;
			this.properties = properties;
		}

		@Override
		public void afterSingletonsInstantiated() {
			LockProperties properties = this.properties.getObject();
			if (properties.getIdempotency().isTransactional()) {
				throw new InvalidConfigurationPropertyValueException("lock.idempotency.transactional", "true",
						"Idempotent responses kept in the handler's database transaction need a servlet web "
								+ "application, whose request thread holds the transaction; this is a reactive "
								+ "(WebFlux) application. Set lock.idempotency.transactional=false (the default).");
			}
			IdempotentRequestWebFilter filter = this.filter.getIfUnique();
			if (filter == null) {
				return;
			}
			List<String> idempotent = filter.getIdempotentHandlerMethods()
				.stream()
				.map(HandlerMethod::getShortLogMessage)
				.sorted()
				.toList();
			IdempotentHandlersCheck.check(idempotent, this.locks.getObject(), properties);
		}

	}

}
