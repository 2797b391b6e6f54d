package dev.lockstarter.autoconfigure.adapter;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the starter provides ShedLock's {@link LockProvider}.
 */
class LockProviderAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class, LockProviderAutoConfiguration.class))
		.withPropertyValues("lock.store=memory");

	@Test
	void providerLocksTheKeyOfTheJobOfTheSameName() {
		this.contextRunner.run((context) -> {
			LockProvider provider = context.getBean(LockProvider.class);
			assertThat(provider).isInstanceOf(LockOperationsLockProvider.class);
			LockOperations locks = context.getBean(LockOperations.class);
			Optional<SimpleLock> lock = provider
				.lock(new LockConfiguration(Instant.now(), "report", Duration.ofSeconds(10), Duration.ZERO));
			assertThat(lock).isPresent();
			assertThat(locks.tryAcquire("report", Duration.ofSeconds(1)).isAcquired()).isFalse();
			lock.get().unlock();
			assertThat(locks.tryAcquire("report", Duration.ofSeconds(1)).isAcquired()).isTrue();
		});
	}

	@Test
	void applicationsOwnProviderWins() {
		this.contextRunner.withUserConfiguration(OwnProvider.class).run((context) -> {
			assertThat(context).hasSingleBean(LockProvider.class);
			assertThat(context).doesNotHaveBean(LockOperationsLockProvider.class);
		});
	}

	@Test
	void noProviderWithoutTheAdapterModule() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(LockOperationsLockProvider.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LockProvider.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnProvider {

		@Bean
		LockProvider ownProvider() {
			return (configuration) -> Optional.empty();
		}

	}

}
