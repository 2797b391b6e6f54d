package dev.lockstarter.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.jdbc.JdbcLockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.DefaultResourceLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests for the choice of the lock store when {@code lock.store} is not set
 * ({@link StoreSelection}), with the store modules of the test classpath hidden as each
 * test needs, and a real Redis server behind the connection factory.
 */
@ExtendWith(OutputCaptureExtension.class)
class StoreSelectionTests {

	private static final String REDIS_CHOSEN = "lock.store is not set; using the Redis lock store because a "
			+ "RedisConnectionFactory exists and dev.lockstarter:lock-store-redis is the only lock store module on "
			+ "the classpath";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class));

	private final ApplicationContextRunner redisContextRunner = this.contextRunner
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());

	@Test
	void twoStoreModulesWithoutLockStoreFailNamingThePropertyAndTheModules(CapturedOutput output) {
		this.redisContextRunner.withClassLoader(StoreModules.only(RedisLockStore.class, JdbcLockStore.class))
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable failure = context.getStartupFailure();
				assertThat(failure).rootCause()
					.isInstanceOf(LockStoreNotSelectedException.class)
					.hasMessageContaining("lock.store is not set")
					.hasMessageContaining("dev.lockstarter:lock-store-redis, dev.lockstarter:lock-store-jdbc")
					.hasMessageContaining("Set lock.store to redis, jdbc or memory");
				FailureAnalysis analysis = new LockStoreNotSelectedFailureAnalyzer().analyze(failure);
				assertThat(analysis.getDescription()).contains("lock.store is not set")
					.contains("dev.lockstarter:lock-store-redis")
					.contains("dev.lockstarter:lock-store-jdbc");
				assertThat(analysis.getAction()).contains("Set lock.store to redis, jdbc or memory");
				assertThat(output).doesNotContain("using the Redis lock store");
			});
	}

	@Test
	void everyStoreModuleWithoutLockStoreFailsListingThemAll() {
		this.redisContextRunner.run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.isInstanceOf(LockStoreNotSelectedException.class)
			.hasMessageContaining("dev.lockstarter:lock-store-redis, dev.lockstarter:lock-store-memcached, "
					+ "dev.lockstarter:lock-store-dynamodb, dev.lockstarter:lock-store-etcd, "
					+ "dev.lockstarter:lock-store-jdbc, dev.lockstarter:lock-store-zookeeper")
			.hasMessageContaining("Set lock.store to redis, memcached, dynamodb, etcd, jdbc, zookeeper or memory"));
	}

	@Test
	void applicationFailsToStartWithAnAnalysisOfTheMissingLockStore(CapturedOutput output) {
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.resourceLoader(new DefaultResourceLoader(StoreModules.only(RedisLockStore.class, JdbcLockStore.class)))
			.properties("spring.main.banner-mode=off", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port())
			.run());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("lock.store is not set, and more than one lock store module is on the classpath "
					+ "(dev.lockstarter:lock-store-redis, dev.lockstarter:lock-store-jdbc)")
			.contains("Set lock.store to redis, jdbc or memory");
	}

	@Test
	void singleModuleOtherThanRedisIsNotChosenWithoutLockStore() {
		this.contextRunner.withClassLoader(StoreModules.only(JdbcLockStore.class))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(LockStoreNotSelectedException.class)
				.hasMessageContaining("lock.store is not set, and the lock store module on the classpath "
						+ "(dev.lockstarter:lock-store-jdbc) is used only when lock.store selects it")
				.hasMessageContaining("Set lock.store to jdbc or memory"));
	}

	@Test
	void redisModuleAloneWithAConnectionFactoryUsesRedisAndLogsWhyAtInfoOnce(CapturedOutput output) {
		this.redisContextRunner.withClassLoader(StoreModules.only(RedisLockStore.class)).run((context) -> {
			assertThat(context).hasSingleBean(RedisLockStore.class);
			assertThat(context).doesNotHaveBean(InMemoryLockStore.class);
			StoreSelectionAutoConfigurationTests.assertExclusive(context);
			assertThat(output).containsPattern("INFO .* - " + REDIS_CHOSEN);
			assertThat(output.getOut().split(REDIS_CHOSEN, -1)).as("lines logging the choice").hasSize(2);
		});
	}

	@Test
	void redisModuleAloneWithoutAConnectionFactoryUsesTheInMemoryStoreWithAWarning(CapturedOutput output) {
		this.contextRunner.withClassLoader(StoreModules.only(RedisLockStore.class)).run((context) -> {
			assertThat(context).hasSingleBean(InMemoryLockStore.class);
			StoreSelectionAutoConfigurationTests.assertExclusive(context);
			assertThat(output).containsPattern("WARN .* - lock.store is not set; using the in-memory lock store "
					+ "because there is no RedisConnectionFactory for the Redis lock store "
					+ "\\(dev.lockstarter:lock-store-redis\\)");
		});
	}

	@Test
	void noStoreModuleUsesTheInMemoryStoreWithAWarning(CapturedOutput output) {
		this.contextRunner.withClassLoader(StoreModules.none()).run((context) -> {
			assertThat(context).hasSingleBean(InMemoryLockStore.class);
			StoreSelectionAutoConfigurationTests.assertExclusive(context);
			assertThat(output).containsPattern("WARN .* - lock.store is not set; using the in-memory lock store "
					+ "because no lock store module is on the classpath");
		});
	}

	@Test
	void lockStoreSetWithSeveralModulesSelectsThatStore(CapturedOutput output) {
		this.redisContextRunner.withPropertyValues("lock.store=redis").run((context) -> {
			assertThat(context).hasSingleBean(RedisLockStore.class);
			StoreSelectionAutoConfigurationTests.assertExclusive(context);
		});
		this.redisContextRunner.withPropertyValues("lock.store=memory").run((context) -> {
			assertThat(context).hasSingleBean(InMemoryLockStore.class);
			assertThat(context).doesNotHaveBean(RedisLockStore.class);
			StoreSelectionAutoConfigurationTests.assertExclusive(context);
		});
		assertThat(output).doesNotContain("lock.store is not set");
	}

	@Test
	void applicationsLockStoreIsUsedWithSeveralModulesAndNoLockStore() {
		this.redisContextRunner.withUserConfiguration(ApplicationStore.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).getBean(LockStore.class).isSameAs(context.getBean("applicationStore"));
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationStore {

		@Bean
		InMemoryLockStore applicationStore() {
			return new InMemoryLockStore();
		}

	}

}
