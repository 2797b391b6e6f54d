package dev.lockstarter.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.interceptor.LockDeclaration;
import dev.lockstarter.interceptor.LockMethodValidator;
import dev.lockstarter.store.LockStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Fails startup when a method declares permits or a read/write lock
 * ({@code @ExclusiveRequest(permits = 3)}, {@code mode = READ}) but the lock store keeps
 * only mutexes, naming the methods and the store.
 */
class LockKindsValidator implements SmartInitializingSingleton {

	private final List<LockMethodValidator<?>> methods;

	private final ObjectProvider<LockOperations> locks;

	private final ObjectProvider<LockStore> store;

	private final ObjectProvider<LockProperties> properties;

	LockKindsValidator(List<LockMethodValidator<?>> methods, ObjectProvider<LockOperations> locks,
			ObjectProvider<LockStore> store, ObjectProvider<LockProperties> properties) {
		this.methods = methods;
		this.locks = locks;
		this.store = store;
		this.properties = properties;
	}

	@Override
	public void afterSingletonsInstantiated() {
		LockOperations locks = this.locks.getIfAvailable();
		if (locks == null) {
			return;
		}
		List<String> refused = new ArrayList<>();
		for (LockMethodValidator<?> validator : this.methods) {
			for (LockDeclaration<?> declaration : validator.getDeclarations()) {
				if (!locks.supports(declaration.attribute().kind())) {
					refused.add(declaration.describeMethod() + " (" + declaration.attribute().kind() + ")");
				}
			}
		}
		if (refused.isEmpty()) {
			return;
		}
		LockStore store = this.store.getIfAvailable();
		String described = ResultSharingValidator.describe(store);
		Object value = ResultSharingValidator.storeValue(this.properties.getIfAvailable(), store);
		throw new InvalidConfigurationPropertyValueException("lock.store", value,
				"Permits and read/write locks need a lock store that keeps them, such as redis, jdbc or memory, and "
						+ described + " keeps only one holder per key. Methods: "
						+ String.join(", ", refused.stream().sorted().toList()) + ".");
	}

}
