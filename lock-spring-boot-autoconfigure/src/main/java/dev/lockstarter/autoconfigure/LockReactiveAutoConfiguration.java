package dev.lockstarter.autoconfigure;

import reactor.core.publisher.Mono;

import dev.lockstarter.core.Internal;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.core.ReactiveLockOperations;
import dev.lockstarter.core.ReactiveLockTemplate;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of {@link ReactiveLockOperations} when Project Reactor is present:
 * a {@link ReactiveLockTemplate} on the auto-configured {@link LockTemplate}, so that
 * reactive and blocking callers share one store, key prefix, renewal and listeners.
 *
 * @since 0.1.0
 */
@Internal
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "lock.enabled", matchIfMissing = true)
@ConditionalOnClass(Mono.class)
@ConditionalOnBean(LockTemplate.class)
public final class LockReactiveAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(ReactiveLockOperations.class)
	ReactiveLockTemplate reactiveLockTemplate(LockTemplate lockTemplate) {
		return new ReactiveLockTemplate(lockTemplate);
	}

}
