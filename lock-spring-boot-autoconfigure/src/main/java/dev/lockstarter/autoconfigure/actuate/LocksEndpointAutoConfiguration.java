package dev.lockstarter.autoconfigure.actuate;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import dev.lockstarter.autoconfigure.DefaultLockOptions;
import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.autoconfigure.LockIdempotencyAutoConfiguration;
import dev.lockstarter.autoconfigure.LockProperties;
import dev.lockstarter.autoconfigure.actuate.LocksEndpoint.ExclusiveJobDescriptor;
import dev.lockstarter.autoconfigure.actuate.LocksEndpoint.ExclusiveRequestDescriptor;
import dev.lockstarter.autoconfigure.actuate.LocksEndpoint.StoreDescriptor;
import dev.lockstarter.core.HeldLock;
import dev.lockstarter.core.LockHolders;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.interceptor.ExclusiveJobMethodValidator;
import dev.lockstarter.interceptor.ExclusiveRequestMethodValidator;
import dev.lockstarter.store.LockStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.util.function.SingletonSupplier;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@link LocksEndpoint}. Like every Actuator endpoint, it is
 * created only when it is available: enabled ({@code management.endpoint.locks.access})
 * and exposed, for example with
 * {@code management.endpoints.web.exposure.include=health,locks}; it is not exposed by
 * default. Its access is read-only unless set otherwise, which keeps the force-release
 * off.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { LockAutoConfiguration.class, LockIdempotencyAutoConfiguration.class })
@ConditionalOnClass(name = { "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
		"org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint" })
@ConditionalOnBooleanProperty(name = "lock.enabled", matchIfMissing = true)
@ConditionalOnBean(LockOperations.class)
@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
public final class LocksEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LocksEndpoint locksEndpoint(LockProperties properties, ObjectProvider<LockOperations> locks,
			ObjectProvider<LockStore> store, ObjectProvider<ExclusiveRequestMethodValidator> methods,
			ObjectProvider<ExclusiveJobMethodValidator> jobs, ConfigurableListableBeanFactory beanFactory,
			ApplicationEventPublisher events) {
		Supplier<StoreDescriptor> storeDescriptor = SingletonSupplier.of(() -> {
			LockStore lockStore = store.getIfUnique();
			LockOperations operations = locks.getIfUnique();
			String kind = (lockStore != null) ? LockStores.kind(lockStore, operations) : "unknown";
			return StoreDescriptions.describe(lockStore, kind, LockStores.keyPrefix(operations, properties),
					beanFactory);
		});
		// One defaults object: each declaration keeps its options resolved for the last
		// defaults it was given
		Supplier<LockOptions> defaults = SingletonSupplier.of(new DefaultLockOptions(properties));
		Supplier<List<ExclusiveRequestDescriptor>> exclusiveRequests = () -> {
			ExclusiveRequestMethodValidator validator = methods.getIfUnique();
			if (validator == null) {
				return List.of();
			}
			return validator.getDeclarations()
				.stream()
				.map((declaration) -> ExclusiveRequestDescriptor.of(declaration, defaults.get(),
						properties.getWeb().getConflictStatus(), properties.getResultTtl()))
				.toList();
		};
		Supplier<List<ExclusiveJobDescriptor>> exclusiveJobs = () -> {
			ExclusiveJobMethodValidator validator = jobs.getIfUnique();
			if (validator == null) {
				return List.of();
			}
			return validator.getDeclarations()
				.stream()
				.map((declaration) -> ExclusiveJobDescriptor.of(declaration, defaults.get()))
				.toList();
		};
		Supplier<List<HeldLock>> heldLocks = () -> (locks.getIfUnique() instanceof LockTemplate template)
				? template.getHeldLocks() : List.of();
		Supplier<Optional<LockHolders>> holders = SingletonSupplier
			.of(() -> (locks.getIfUnique() instanceof LockTemplate template) ? LockHolders.of(template)
					: Optional.empty());
		boolean showKeys = properties.getActuator().isShowKeys();
		return new LocksEndpoint(storeDescriptor, exclusiveRequests, IdempotentRequestDescriptions.of(beanFactory),
				exclusiveJobs, heldLocks, showKeys, new LockHolderOperations(holders, events, showKeys));
	}

}
