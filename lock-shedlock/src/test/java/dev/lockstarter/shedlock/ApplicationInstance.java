package dev.lockstarter.shedlock;

import java.time.Duration;
import java.util.function.Function;

import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.interceptor.ExclusiveJobAdvisor;
import dev.lockstarter.interceptor.ExclusiveJobAttributeSource;
import dev.lockstarter.interceptor.ExclusiveJobInterceptor;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One application instance of the tests: a Spring context of its own, with its own Redis
 * connection, {@link RedisLockStore} and {@link LockTemplate} on the shared Redis server,
 * ShedLock's {@code @EnableSchedulerLock} on the {@link LockProvider} that the test
 * builds over this instance's {@link LockOperations}, and the {@code @ExclusiveJob}
 * advisor, wired as the starter's auto-configuration wires it.
 */
final class ApplicationInstance implements AutoCloseable {

	private final String name;

	private final AnnotationConfigApplicationContext context;

	private ApplicationInstance(String name, AnnotationConfigApplicationContext context) {
		this.name = name;
		this.context = context;
	}

	/**
	 * Start an instance.
	 * @param name the instance's name, a bean of type {@link InstanceName}
	 * @param redis the shared Redis server
	 * @param providers builds the ShedLock provider over the instance's lock operations
	 * @param components further configuration and beans
	 * @param beans shared objects registered as beans
	 */
	static ApplicationInstance start(String name, RedisServerExtension redis,
			Function<LockOperations, LockProvider> providers, Class<?>[] components, Object... beans) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(InstanceName.class, () -> new InstanceName(name));
		context.registerBean(RedisStandaloneConfiguration.class,
				() -> new RedisStandaloneConfiguration(redis.host(), redis.port()));
		context.registerBean(ProviderFactory.class, () -> providers::apply);
		for (Object bean : beans) {
			registerShared(context, bean);
		}
		context.register(Infrastructure.class);
		context.register(components);
		context.refresh();
		// The Redis connection opens on first use, slowly in a fresh JVM: open it now, so
		// that a test's first lock attempt does not wait for it
		try (RedisConnection connection = context.getBean(LettuceConnectionFactory.class).getConnection()) {
			connection.ping();
		}
		return new ApplicationInstance(name, context);
	}

	@SuppressWarnings("unchecked")
	private static <T> void registerShared(AnnotationConfigApplicationContext context, T bean) {
		context.registerBean((Class<T>) bean.getClass(), () -> bean);
	}

	String name() {
		return this.name;
	}

	<T> T getBean(Class<T> type) {
		return this.context.getBean(type);
	}

	@Override
	public void close() {
		this.context.close();
	}

	/**
	 * The name of an instance.
	 *
	 * @param value the name
	 */
	record InstanceName(String value) {

	}

	/**
	 * Builds the instance's ShedLock provider.
	 */
	@FunctionalInterface
	interface ProviderFactory {

		LockProvider create(LockOperations operations);

	}

	@Configuration(proxyBeanMethods = false)
	@EnableSchedulerLock(defaultLockAtMostFor = "10s")
	static class Infrastructure {

		@Bean
		LettuceConnectionFactory redisConnectionFactory(RedisStandaloneConfiguration configuration) {
			return new LettuceConnectionFactory(configuration);
		}

		@Bean
		RedisLockStore lockStore(LettuceConnectionFactory connectionFactory) {
			return new RedisLockStore(connectionFactory);
		}

		@Bean
		LockTemplate lockTemplate(RedisLockStore lockStore) {
			return new LockTemplate(lockStore);
		}

		@Bean
		LockProvider lockProvider(ProviderFactory providers, LockTemplate lockTemplate) {
			return providers.create(lockTemplate);
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static ExclusiveJobAttributeSource exclusiveJobAttributeSource() {
			return new ExclusiveJobAttributeSource();
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static ExclusiveJobAdvisor exclusiveJobAdvisor(ExclusiveJobAttributeSource attributeSource,
				ObjectProvider<LockOperations> locks) {
			return new ExclusiveJobAdvisor(attributeSource, new ExclusiveJobInterceptor(attributeSource,
					locks::getObject, () -> LockOptions.ttl(Duration.ofSeconds(10))));
		}

	}

}
