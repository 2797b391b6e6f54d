package dev.lockstarter.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.autoconfigure.LockProperties.Store;
import dev.lockstarter.store.LockStore;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * The choice of the lock store when {@code lock.store} is not set, made from the store
 * modules on the classpath (see {@link LockStoreConfigurations#storeModules}):
 * <ul>
 * <li>none: the in-memory store;</li>
 * <li>only Redis: the Redis store when a {@code RedisConnectionFactory} exists, the
 * in-memory store otherwise;</li>
 * <li>any other: none, and startup fails with a {@link LockStoreNotSelectedException}
 * that asks for {@code lock.store}, unless the application defines its own
 * {@link LockStore}.</li>
 * </ul>
 * A store module other than Redis is never chosen without {@code lock.store}: the
 * application must say which store it means, and the store needs settings of its own.
 */
final class StoreSelection {

	private static final String PROPERTY = "lock.store";

	private StoreSelection() {
	}

	/**
	 * Return the stores that may be used when {@code lock.store} is not set, in order of
	 * preference.
	 * @param storeModules the stores whose module is on the classpath
	 * @return the candidate stores, empty when {@code lock.store} must be set
	 */
	static List<Store> candidates(List<Store> storeModules) {
		if (storeModules.isEmpty()) {
			return List.of(Store.MEMORY);
		}
		if (storeModules.equals(List.of(Store.REDIS))) {
			return List.of(Store.REDIS, Store.MEMORY);
		}
		return List.of();
	}

	/**
	 * Return why the in-memory store is used when {@code lock.store} is not set.
	 * @param storeModules the stores whose module is on the classpath
	 * @return the reason, to be logged
	 */
	static String memoryReason(List<Store> storeModules) {
		return storeModules.isEmpty() ? "no lock store module is on the classpath"
				: "there is no RedisConnectionFactory for the Redis lock store ("
						+ LockStoreConfigurations.module(Store.REDIS) + ")";
	}

	private static @Nullable String configuredStore(ConditionContext context) {
		String value = context.getEnvironment().getProperty(PROPERTY);
		return StringUtils.hasText(value) ? value.trim() : null;
	}

	/**
	 * Matches when {@code lock.store} selects the store, or when it is not set and the
	 * store is a {@link #candidates candidate}.
	 */
	abstract static class OnStore extends SpringBootCondition {

		private final Store store;

		OnStore(Store store) {
			this.store = store;
		}

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			ConditionMessage.Builder message = ConditionMessage.forCondition("Lock store",
					LockStoreConfigurations.propertyValue(this.store));
			String configured = configuredStore(context);
			if (configured != null) {
				return new ConditionOutcome(
						configured.equalsIgnoreCase(LockStoreConfigurations.propertyValue(this.store)),
						message.because(PROPERTY + " is " + configured));
			}
			List<Store> modules = LockStoreConfigurations.storeModules(context.getClassLoader());
			return new ConditionOutcome(candidates(modules).contains(this.store),
					message.because(PROPERTY + " is not set and the store modules on the classpath are " + modules));
		}

	}

	/**
	 * Matches when the Redis lock store is selected or may be chosen.
	 */
	static final class OnRedisStore extends OnStore {

		OnRedisStore() {
			super(Store.REDIS);
		}

	}

	/**
	 * Matches when the in-memory lock store is selected or may be chosen.
	 */
	static final class OnMemoryStore extends OnStore {

		OnMemoryStore() {
			super(Store.MEMORY);
		}

	}

	/**
	 * Matches when {@code lock.store} is not set and no store may be chosen without it.
	 */
	static final class OnStoreNotSelected extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			ConditionMessage.Builder message = ConditionMessage.forCondition("Lock store selection");
			if (configuredStore(context) != null) {
				return ConditionOutcome.noMatch(message.because(PROPERTY + " is set"));
			}
			List<Store> modules = LockStoreConfigurations.storeModules(context.getClassLoader());
			return new ConditionOutcome(candidates(modules).isEmpty(),
					message.because(PROPERTY + " is not set and the store modules on the classpath are " + modules));
		}

	}

	/**
	 * Fails startup when {@code lock.store} is not set, no store may be chosen without
	 * it, and the application defines no {@link LockStore}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(LockStore.class)
	@Conditional(OnStoreNotSelected.class)
	static class StoreNotSelectedConfiguration {

		@Bean
		LockStore lockStoreNotSelected(ResourceLoader resourceLoader) {
			throw new LockStoreNotSelectedException(
					LockStoreConfigurations.storeModules(resourceLoader.getClassLoader()));
		}

	}

}
