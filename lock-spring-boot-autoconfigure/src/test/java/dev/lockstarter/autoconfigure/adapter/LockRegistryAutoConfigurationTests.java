package dev.lockstarter.autoconfigure.adapter;

import java.time.Duration;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.Test;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.integration.LockOperationsLockRegistry;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the starter provides Spring Integration's {@link LockRegistry}.
 */
class LockRegistryAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class, LockRegistryAutoConfiguration.class));

	@Test
	void registryLocksTheKeysOfTheStartersLocks() {
		this.contextRunner.withPropertyValues("lock.ttl=7s").run((context) -> {
			assertThat(context).hasSingleBean(LockOperationsLockRegistry.class);
			LockRegistry<?> registry = context.getBean(LockRegistry.class);
			LockOperations locks = context.getBean(LockOperations.class);
			Lock lock = registry.obtain("order:7");
			assertThat(lock.tryLock()).isTrue();
			try {
				assertThat(locks.tryAcquire("order:7", Duration.ofSeconds(1)).isAcquired()).isFalse();
				assertThat(locks.tryAcquire("order:8", Duration.ofSeconds(1)).isAcquired()).isTrue();
			}
			finally {
				lock.unlock();
			}
			assertThat(locks.tryAcquire("order:7", Duration.ofSeconds(1)).isAcquired()).isTrue();
		});
	}

	@Test
	void registryTakesTheDefaultTimeToLiveAndTheLockName() {
		this.contextRunner.withPropertyValues("lock.ttl=7s").run((context) -> {
			assertThat(context.getBean(LockOperationsLockRegistry.class).toString()).contains("ttl=PT7S")
				.contains(LockRegistryAutoConfiguration.LOCK_NAME);
		});
	}

	@Test
	void applicationsOwnRegistryWins() {
		this.contextRunner.withUserConfiguration(OwnRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(LockRegistry.class);
			assertThat(context).doesNotHaveBean(LockOperationsLockRegistry.class);
		});
	}

	@Test
	void noRegistryWithoutTheAdapterModule() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(LockOperationsLockRegistry.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void noRegistryWhenLockingIsOff() {
		this.contextRunner.withPropertyValues("lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockRegistry.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRegistry {

		@Bean
		DefaultLockRegistry ownRegistry() {
			return new DefaultLockRegistry();
		}

	}

}
