package dev.lockstarter.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.idempotency.IdempotentRequestListener;
import dev.lockstarter.store.LockStore;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the lock meters ({@link LockMeters}, {@link ExclusiveJobMeters},
 * {@link IdempotentRequestMeters}) when Micrometer and a {@link MeterRegistry} are
 * present. Turn them off with {@code management.metrics.enable.lock=false}, as any other
 * meters.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = LockAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public final class LockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(LockStore.class)
	LockMeters lockMeters(MeterRegistry registry, LockStore store) {
		return new LockMeters(registry, LockTemplate.storeNameOf(store));
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(LockStore.class)
	ExclusiveJobMeters exclusiveJobMeters(MeterRegistry registry, LockStore store) {
		return new ExclusiveJobMeters(registry, LockTemplate.storeNameOf(store));
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(IdempotentRequestListener.class)
	static class IdempotentRequestMetersConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(LockStore.class)
		IdempotentRequestMeters idempotentRequestMeters(MeterRegistry registry, LockStore store) {
			return new IdempotentRequestMeters(registry, LockTemplate.storeNameOf(store));
		}

	}

}
