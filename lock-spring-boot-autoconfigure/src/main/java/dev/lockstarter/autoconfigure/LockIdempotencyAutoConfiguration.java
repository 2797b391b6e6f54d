package dev.lockstarter.autoconfigure;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Internal;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.idempotency.IdempotentRequestBufferingFilter;
import dev.lockstarter.idempotency.IdempotentRequestInterceptor;
import dev.lockstarter.idempotency.IdempotentRequestListener;
import dev.lockstarter.idempotency.IdempotentRequestTransactions;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.jdbc.JdbcLockStore;
import org.springframework.beans.factory.ListableBeanFactory;
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
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of {@link dev.lockstarter.idempotency.IdempotentRequest} handling
 * in servlet web applications: the {@link IdempotentRequestBufferingFilter}, the
 * {@link IdempotentRequestInterceptor} and a startup check that the lock store keeps
 * results when a handler is annotated. With {@code lock.idempotency.transactional=true},
 * the {@link IdempotentRequestTransactions} that keep each response in the handler's own
 * database transaction, and a startup check that the JDBC lock store and a transaction
 * manager for its {@code DataSource} are there.
 *
 * @since 0.1.0
 */
@Internal
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "lock.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "lock.idempotency.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ DispatcherServlet.class, IdempotentRequestInterceptor.class })
@ConditionalOnBean(LockOperations.class)
public final class LockIdempotencyAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	IdempotentRequestInterceptor idempotentRequestInterceptor(ObjectProvider<LockOperations> locks,
			LockProperties properties, ObjectProvider<IdempotentRequestListener> listeners,
			ObjectProvider<IdempotentRequestTransactions> transactions) {
		IdempotencyProperties idempotency = properties.getIdempotency();
		IdempotentRequestInterceptor interceptor = new IdempotentRequestInterceptor(
				SingletonSupplier.of(locks::getObject), new DefaultLockOptions(properties), idempotency.getRetention());
		interceptor.setReplayedHeaders(idempotency.getReplayedHeaders());
		interceptor.setStoreServerErrors(idempotency.isStoreServerErrors());
		interceptor.setMaxKeyLength(idempotency.getMaxKeyLength());
		interceptor.setMaxBodySize(idempotency.getMaxBodySize().toBytes());
		interceptor.setMaxResponseSize(idempotency.getMaxResponseSize().toBytes());
		interceptor.setTransactions(transactions.getIfAvailable());
		List<IdempotentRequestListener> all = listeners.orderedStream().toList();
		if (!all.isEmpty()) {
			interceptor.setListener((handler, outcome) -> all.forEach((l) -> l.requestHandled(handler, outcome)));
		}
		return interceptor;
	}

	@Bean
	@ConditionalOnMissingBean
	IdempotentRequestBufferingFilter idempotencyFilter() {
		return new IdempotentRequestBufferingFilter();
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

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "lock.idempotency.transactional")
	static class TransactionalIdempotencyConfiguration {

		@Bean
		@ConditionalOnMissingBean
		IdempotentRequestTransactions idempotentRequestTransactions(ListableBeanFactory beanFactory) {
			ClassLoader classLoader = TransactionalIdempotencyConfiguration.class.getClassLoader();
			if (!ClassUtils.isPresent(TRANSACTION_MANAGER_CLASS, classLoader)
					|| !ClassUtils.isPresent(JDBC_STORE_CLASS, classLoader)) {
				throw transactionalFailure("It needs the JDBC lock store (lock-store-jdbc, lock.store=jdbc) and "
						+ "spring-tx on the classpath.");
			}
			return TransactionalIdempotency.create(beanFactory);
		}

	}

	private static final String TRANSACTION_MANAGER_CLASS = "org.springframework.transaction.PlatformTransactionManager";

	private static final String JDBC_STORE_CLASS = "dev.lockstarter.store.jdbc.JdbcLockStore";

	static InvalidConfigurationPropertyValueException transactionalFailure(String reason) {
		return new InvalidConfigurationPropertyValueException("lock.idempotency.transactional", "true",
				"Idempotent responses kept in the handler's database transaction: " + reason
						+ " Set lock.idempotency.transactional=false to keep responses after the handler's "
						+ "transaction instead.");
	}

	/**
	 * Checks and wiring that touch the JDBC store and spring-tx, loaded only once both
	 * are known to be present.
	 */
	static final class TransactionalIdempotency {

		private TransactionalIdempotency() {
		}

		static IdempotentRequestTransactions create(ListableBeanFactory beanFactory) {
			LockStore store = beanFactory.getBeanProvider(LockStore.class).getIfUnique();
			if (!(store instanceof JdbcLockStore jdbcStore)) {
				throw transactionalFailure("It needs the JDBC lock store (lock.store=jdbc), but the lock store is "
						+ ((store != null) ? store.getClass().getName() : "not a single bean") + ".");
			}
			PlatformTransactionManager transactionManager = beanFactory
				.getBeanProvider(PlatformTransactionManager.class)
				.getIfUnique();
			if (transactionManager == null) {
				throw transactionalFailure("It needs a single (or primary) PlatformTransactionManager for the lock "
						+ "store's DataSource, and there is none or more than one. Add spring-boot-starter-jdbc "
						+ "(a DataSourceTransactionManager is then auto-configured) or mark one @Primary.");
			}
			DataSource managed = managedDataSource(transactionManager);
			if (managed != jdbcStore.getDataSource()) {
				throw transactionalFailure("The PlatformTransactionManager (" + transactionManager.getClass().getName()
						+ ") does not manage the lock store's DataSource, "
						+ "so the kept response would not be written in the handler's transaction.");
			}
			jdbcStore.setJoinTransactionForResults(true);
			return new IdempotentRequestTransactions(transactionManager);
		}

		private static @Nullable DataSource managedDataSource(PlatformTransactionManager transactionManager) {
			if (transactionManager instanceof ResourceTransactionManager resources
					&& resources.getResourceFactory() instanceof DataSource dataSource) {
				return dataSource;
			}
			// JpaTransactionManager and HibernateTransactionManager expose the DataSource
			// whose connection they bind, too
			Method getter = ReflectionUtils.findMethod(transactionManager.getClass(), "getDataSource");
			if (getter != null && DataSource.class.isAssignableFrom(getter.getReturnType())) {
				return (DataSource) ReflectionUtils.invokeMethod(getter, transactionManager);
			}
			return null;
		}

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
			IdempotentHandlersCheck.check(idempotent, this.locks.getObject(), this.properties.getObject());
		}

	}

}
