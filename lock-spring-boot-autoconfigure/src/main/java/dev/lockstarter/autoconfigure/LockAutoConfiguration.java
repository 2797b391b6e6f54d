package dev.lockstarter.autoconfigure;

import java.util.List;

import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.json.JsonMapper;

import dev.lockstarter.core.Internal;
import dev.lockstarter.core.LockListener;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.interceptor.ExclusiveJobAdvisor;
import dev.lockstarter.interceptor.ExclusiveJobAttributeSource;
import dev.lockstarter.interceptor.ExclusiveJobInterceptor;
import dev.lockstarter.interceptor.ExclusiveJobListener;
import dev.lockstarter.interceptor.ExclusiveJobMethodValidator;
import dev.lockstarter.interceptor.ExclusiveRequestAdvisor;
import dev.lockstarter.interceptor.ExclusiveRequestAttributeSource;
import dev.lockstarter.interceptor.ExclusiveRequestInterceptor;
import dev.lockstarter.interceptor.ExclusiveRequestMethodValidator;
import dev.lockstarter.interceptor.LockMethodValidator;
import dev.lockstarter.interceptor.StoreFailurePolicy;
import dev.lockstarter.observation.DefaultExclusiveRequestObservationConvention;
import dev.lockstarter.observation.ExclusiveRequestObservationConvention;
import dev.lockstarter.observation.LockAcquireObservationConvention;
import dev.lockstarter.result.JacksonResultCodec;
import dev.lockstarter.result.ResultCodec;
import dev.lockstarter.store.LockStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.context.annotation.Role;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.function.SingletonSupplier;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for distributed request locking: a {@link LockStore} (Redis,
 * in-memory, Memcached, DynamoDB or JDBC), {@link LockOperations}, and the advice behind
 * {@link dev.lockstarter.annotation.ExclusiveRequest} and
 * {@link dev.lockstarter.annotation.ExclusiveJob}.
 *
 * @since 0.1.0
 */
@Internal
@AutoConfiguration(afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
		"org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties({ RedisLockStoreProperties.class, MemcachedLockStoreProperties.class,
		DynamoDbLockStoreProperties.class, JdbcLockStoreProperties.class, InMemoryLockStoreProperties.class,
		EtcdLockStoreProperties.class, ZooKeeperLockStoreProperties.class })
@Import({ LockAutoProxyRegistrar.class, LockAutoConfiguration.LockStoreConfigurationImportSelector.class })
public final class LockAutoConfiguration {

	private static final Log logger = LogFactory.getLog(LockAutoConfiguration.class);

	/**
	 * The {@code lock.*} properties, bound as any {@code @ConfigurationProperties} bean.
	 * An infrastructure bean: the advisors, created while bean post-processors are being
	 * registered, take their order and store-failure policy from it, so it is created
	 * that early too, before post-processors that have nothing to do with it.
	 * @return the properties, to be bound
	 */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockProperties lockProperties() {
		return new LockProperties();
	}

	@Bean
	@ConditionalOnMissingBean(LockOperations.class)
	LockTemplate lockTemplate(LockStore lockStore, LockProperties properties, ObjectProvider<LockListener> listeners,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<LockAcquireObservationConvention> observationConvention) {
		LockTemplate template = new LockTemplate(lockStore, properties.getKeyPrefix());
		template.setLossMargin(properties.getLossMargin());
		listeners.orderedStream().forEach(template::addListener);
		observationRegistry.ifUnique(template::setObservationRegistry);
		observationConvention.ifUnique(template::setObservationConvention);
		return template;
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static ExclusiveRequestAttributeSource exclusiveRequestAttributeSource() {
		return new ExclusiveRequestAttributeSource();
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static ExclusiveRequestMethodValidator exclusiveRequestMethodValidator(
			ExclusiveRequestAttributeSource attributeSource) {
		return new ExclusiveRequestMethodValidator(attributeSource);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static ExclusiveRequestAdvisor exclusiveRequestAdvisor(ExclusiveRequestAttributeSource attributeSource,
			ObjectProvider<LockOperations> locks, LockProperties properties, ObjectProvider<ResultCodec> resultCodec,
			ObjectProvider<LockListener> listeners, ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<ExclusiveRequestObservationConvention> observationConvention) {
		// The advisor is created while bean post-processors are being registered:
		// resolve the lock beans lazily, once, on the first call
		ExclusiveRequestInterceptor interceptor = new ExclusiveRequestInterceptor(attributeSource,
				SingletonSupplier.of(locks::getObject), new DefaultLockOptions(properties));
		interceptor.setResultCodec(SingletonSupplier.of(resultCodec::getIfAvailable));
		interceptor.setDefaultResultTtl(properties::getResultTtl);
		interceptor.setObservationRegistry(
				SingletonSupplier.of(() -> observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP)));
		interceptor.setObservationConvention(SingletonSupplier
			.of(() -> observationConvention.getIfUnique(() -> DefaultExclusiveRequestObservationConvention.INSTANCE)));
		interceptor.setListener(() -> new ResultSharedListeners(listeners.orderedStream().toList()));
		if (properties.getOnStoreFailure() == StoreFailurePolicy.FAIL_OPEN) {
			logger.warn("lock.on-store-failure=fail-open: when the lock store fails, @ExclusiveRequest methods run "
					+ "WITHOUT a lock, so concurrent duplicates can run. Mutual exclusion holds only while the "
					+ "store answers.");
		}
		interceptor.setStoreFailurePolicy(properties.getOnStoreFailure());
		interceptor.setOnLeaseLost(properties.getOnLeaseLost());
		ExclusiveRequestAdvisor advisor = new ExclusiveRequestAdvisor(attributeSource, interceptor);
		advisor.setOrder(properties.getOrder());
		return advisor;
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static ExclusiveJobAttributeSource exclusiveJobAttributeSource() {
		return new ExclusiveJobAttributeSource();
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static ExclusiveJobMethodValidator exclusiveJobMethodValidator(ExclusiveJobAttributeSource attributeSource) {
		return new ExclusiveJobMethodValidator(attributeSource);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static ExclusiveJobAdvisor exclusiveJobAdvisor(ExclusiveJobAttributeSource attributeSource,
			ObjectProvider<LockOperations> locks, LockProperties properties,
			ObjectProvider<ExclusiveJobListener> listeners) {
		// Created while bean post-processors are being registered, as the
		// ExclusiveRequestAdvisor: the lock beans are resolved lazily
		ExclusiveJobInterceptor interceptor = new ExclusiveJobInterceptor(attributeSource,
				SingletonSupplier.of(locks::getObject), new DefaultLockOptions(properties));
		interceptor.setListeners(() -> listeners.orderedStream().toList());
		interceptor.setOnLeaseLost(properties.getOnLeaseLost());
		ExclusiveJobAdvisor advisor = new ExclusiveJobAdvisor(attributeSource, interceptor);
		advisor.setOrder(properties.getOrder());
		return advisor;
	}

	@Bean
	static ResultSharingValidator resultSharingValidator(ExclusiveRequestMethodValidator methods,
			ObjectProvider<LockOperations> locks, ObjectProvider<LockStore> store, ObjectProvider<ResultCodec> codec,
			ObjectProvider<LockProperties> properties) {
		return new ResultSharingValidator(methods, locks, store, codec, properties);
	}

	@Bean
	static LockKindsValidator lockKindsValidator(ObjectProvider<LockMethodValidator<?>> methods,
			ObjectProvider<LockOperations> locks, ObjectProvider<LockStore> store,
			ObjectProvider<LockProperties> properties) {
		return new LockKindsValidator(methods.orderedStream().toList(), locks, store, properties);
	}

	/**
	 * Tells every {@link LockListener} bean when a single-flight caller receives a shared
	 * result.
	 */
	private record ResultSharedListeners(List<LockListener> listeners) implements LockListener {

		@Override
		public void resultShared(String name) {
			for (LockListener listener : this.listeners) {
				listener.resultShared(name);
			}
		}

	}

	/**
	 * Imports the configuration of every lock store, in {@link LockStoreConfigurations}
	 * order.
	 */
	static class LockStoreConfigurationImportSelector implements ImportSelector {

		@Override
		public String[] selectImports(AnnotationMetadata importingClassMetadata) {
			return LockStoreConfigurations.configurationClassNames();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(JsonMapper.class)
	static class JacksonResultCodecConfiguration {

		@Bean
		@ConditionalOnMissingBean(ResultCodec.class)
		JacksonResultCodec jacksonResultCodec(ObjectProvider<JsonMapper> jsonMapper) {
			return new JacksonResultCodec(jsonMapper.getIfAvailable(JsonMapper::new));
		}

	}

}
