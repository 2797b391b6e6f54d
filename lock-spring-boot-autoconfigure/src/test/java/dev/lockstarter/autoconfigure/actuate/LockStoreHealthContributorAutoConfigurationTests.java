package dev.lockstarter.autoconfigure.actuate;

import org.junit.jupiter.api.Test;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LockStoreHealthContributorAutoConfiguration}.
 */
class LockStoreHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues("lock.store=memory")
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class,
				LockStoreHealthContributorAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class));

	@Test
	void inMemoryStoreIsProbedAndContributedAsLockStore() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LockStoreHealthIndicator.class);
			assertThat(context).doesNotHaveBean(RedisLockStoreHealthIndicator.class);
			assertThat(context.getBean(HealthContributorRegistry.class).getContributor("lockStore"))
				.isSameAs(context.getBean("lockStoreHealthIndicator"));
			Health health = context.getBean(LockStoreHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("store", "memory").containsKey("roundTrip");
		});
	}

	@Test
	void probeKeyIsUnderTheKeyPrefix() {
		this.contextRunner.withPropertyValues("lock.key-prefix=app:")
			.run((context) -> assertThat(context.getBean(LockStoreHealthIndicator.class).getProbeKey())
				.matches("app:health:[0-9a-f]{16}"));
	}

	@Test
	void redisStoreGetsTheEvictionPolicyIndicatorInsteadOfAProbe() {
		this.contextRunner.withPropertyValues("lock.store=redis")
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(RedisLockStoreHealthIndicator.class);
				assertThat(context).doesNotHaveBean(LockStoreHealthIndicator.class);
				assertThat(context.getBean(HealthContributorRegistry.class).getContributor("lockStore"))
					.isSameAs(context.getBean("lockStoreHealthIndicator"));
			});
	}

	@Test
	void indicatorCanBeDisabled() {
		this.contextRunner.withPropertyValues("management.health.lockstore.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("lockStoreHealthIndicator"));
	}

	@Test
	void indicatorFollowsTheDefaultsOfAllIndicators() {
		this.contextRunner.withPropertyValues("management.health.defaults.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("lockStoreHealthIndicator"));
	}

	@Test
	void noIndicatorWithoutTheHealthModule() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(HealthIndicator.class)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean("lockStoreHealthIndicator");
		});
	}

	@Test
	void noIndicatorWhenLockingIsDisabled() {
		this.contextRunner.withPropertyValues("lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("lockStoreHealthIndicator"));
	}

	@Test
	void userDefinedIndicatorReplacesTheDefault() {
		this.contextRunner.withUserConfiguration(CustomIndicator.class).run((context) -> {
			assertThat(context).doesNotHaveBean(LockStoreHealthIndicator.class);
			assertThat(context.getBean("lockStoreHealthIndicator", HealthIndicator.class).health().getStatus())
				.isEqualTo(Status.OUT_OF_SERVICE);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class CustomIndicator {

		@Bean
		HealthIndicator lockStoreHealthIndicator() {
			return () -> Health.outOfService().build();
		}

	}

}
