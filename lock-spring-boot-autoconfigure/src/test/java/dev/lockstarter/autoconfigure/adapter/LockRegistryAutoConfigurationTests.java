package dev.lockstarter.autoconfigure.adapter;

import java.time.Duration;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.Test;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.core.HeldLock;
import dev.lockstarter.core.LeaseLock;
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
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class, LockRegistryAutoConfiguration.class))
		.withPropertyValues("lock.store=memory");

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
	void registryTakesTheDefaultTimeToLiveButNoMaximumHoldAndNamesItsLocks() {
		this.contextRunner.withPropertyValues("lock.ttl=7s", "lock.max-hold=1m").run((context) -> {
			LockOperationsLockRegistry registry = context.getBean(LockOperationsLockRegistry.class);
			LeaseLock lock = (LeaseLock) registry.obtain("order:7");
			lock.lock();
			try {
				assertThat(lock.lease()).isInstanceOf(HeldLock.class);
				HeldLock held = (HeldLock) lock.lease();
				assertThat(held.options().getTtl()).isEqualTo(Duration.ofSeconds(7));
				assertThat(held.options().getMaxHold()).isNull();
				assertThat(held.name()).isEqualTo(LockRegistryAutoConfiguration.LOCK_NAME);
			}
			finally {
				lock.unlock();
			}
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
