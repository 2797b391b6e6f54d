package dev.lockstarter.autoconfigure.adapter;

import net.javacrumbs.shedlock.core.LockProvider;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of ShedLock's {@link LockProvider} on the starter's
 * {@link LockOperations}, when {@code lock-shedlock} is on the classpath and the
 * application declares no {@code LockProvider} of its own: {@code @SchedulerLock} then
 * locks in the starter's store, on the same keys as {@code @ExclusiveJob}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnClass({ LockProvider.class, LockOperationsLockProvider.class })
@ConditionalOnBean(LockOperations.class)
public final class LockProviderAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	LockOperationsLockProvider lockProvider(LockOperations lockOperations) {
		return new LockOperationsLockProvider(lockOperations);
	}

}
