package dev.lockstarter.autoconfigure.adapter;

import dev.lockstarter.autoconfigure.DefaultLockOptions;
import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.autoconfigure.LockProperties;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.integration.LockOperationsLockRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of Spring Integration's {@link LockRegistry} on the starter's
 * {@link LockOperations}, when {@code lock-integration} is on the classpath and the
 * application declares no {@code LockRegistry} of its own. Its locks take
 * {@code lock.ttl} and {@code lock.renew}, and are named {@value #LOCK_NAME} in meters
 * and traces. {@code lock.max-hold} does not apply: a registry's lock is held for as long
 * as its holder wants, as a leader holds its role's lock.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnClass({ LockRegistry.class, LockOperationsLockRegistry.class })
@ConditionalOnBean(LockOperations.class)
public final class LockRegistryAutoConfiguration {

	/**
	 * The name of the registry's locks in meters, traces and the {@code locks} endpoint.
	 */
	public static final String LOCK_NAME = "lock-registry";

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	LockOperationsLockRegistry lockRegistry(LockOperations lockOperations, LockProperties properties) {
		return new LockOperationsLockRegistry(lockOperations,
				new DefaultLockOptions(properties).get().withMaxHold(null).withName(LOCK_NAME));
	}

}
