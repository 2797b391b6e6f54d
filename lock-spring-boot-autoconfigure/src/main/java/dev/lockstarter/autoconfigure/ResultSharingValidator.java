package dev.lockstarter.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.interceptor.ExclusiveRequestMethodValidator;
import dev.lockstarter.result.ResultCodec;
import dev.lockstarter.store.LockStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Fails startup when a method shares its result
 * ({@code @ExclusiveRequest(onConflict = SHARE_RESULT)}) but the lock store keeps no
 * results, or no {@link ResultCodec} is available to serialize them.
 */
class ResultSharingValidator implements SmartInitializingSingleton {

	private final ExclusiveRequestMethodValidator methods;

	private final ObjectProvider<LockOperations> locks;

	private final ObjectProvider<LockStore> store;

	private final ObjectProvider<ResultCodec> codec;

	private final ObjectProvider<LockProperties> properties;

	ResultSharingValidator(ExclusiveRequestMethodValidator methods, ObjectProvider<LockOperations> locks,
			ObjectProvider<LockStore> store, ObjectProvider<ResultCodec> codec,
			ObjectProvider<LockProperties> properties) {
		this.methods = methods;
		this.locks = locks;
		this.store = store;
		this.codec = codec;
		this.properties = properties;
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<String> sharing = this.methods.getResultSharingMethods();
		if (sharing.isEmpty()) {
			return;
		}
		LockOperations locks = this.locks.getIfAvailable();
		if (locks != null && locks.results().isEmpty()) {
			LockStore store = this.store.getIfAvailable();
			throw new InvalidConfigurationPropertyValueException("lock.store",
					storeValue(this.properties.getIfAvailable(), store),
					"@ExclusiveRequest(onConflict = SHARE_RESULT) needs a lock store that keeps results next to "
							+ "locks, such as redis or memory, and " + describe(store) + " keeps none. Methods: "
							+ String.join(", ", sharing) + ".");
		}
		if (this.codec.getIfAvailable() == null) {
			throw new IllegalStateException("@ExclusiveRequest(onConflict = SHARE_RESULT) needs a ResultCodec bean "
					+ "to serialize results; add Jackson (tools.jackson.core:jackson-databind) or define a "
					+ "ResultCodec bean. Methods: " + String.join(", ", sharing) + ".");
		}
	}

	/**
	 * Describe the store for a startup failure: its class, or the lock operations when no
	 * store bean is known.
	 */
	static String describe(@Nullable LockStore store) {
		return (store != null) ? "the lock store " + store.getClass().getName() : "the configured lock operations";
	}

	/**
	 * The value of {@code lock.store} that a startup failure names: the configured one,
	 * or the store's description when the store was not chosen by the property.
	 */
	static Object storeValue(@Nullable LockProperties properties, @Nullable LockStore store) {
		return (properties != null && properties.getStore() != null) ? properties.getStore().name().toLowerCase()
				: describe(store);
	}

}
