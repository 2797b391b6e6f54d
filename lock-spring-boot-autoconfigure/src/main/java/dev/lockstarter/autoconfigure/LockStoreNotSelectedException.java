package dev.lockstarter.autoconfigure;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.lockstarter.autoconfigure.LockProperties.Store;

/**
 * Thrown at startup when {@code lock.store} is not set and the store modules on the
 * classpath leave the choice of the lock store open (see {@link StoreSelection}).
 */
final class LockStoreNotSelectedException extends RuntimeException {

	private final String description;

	private final String action;

	LockStoreNotSelectedException(List<Store> storeModules) {
		this(description(storeModules), action(storeModules));
	}

	private LockStoreNotSelectedException(String description, String action) {
		super(description + " " + action);
		this.description = description;
		this.action = action;
	}

	/**
	 * Return what is wrong: the property is not set, and the store modules found.
	 * @return the description
	 */
	String getDescription() {
		return this.description;
	}

	/**
	 * Return how to fix it: the values of {@code lock.store} to choose from.
	 * @return the action
	 */
	String getAction() {
		return this.action;
	}

	private static String description(List<Store> storeModules) {
		String modules = storeModules.stream().map(LockStoreConfigurations::module).collect(Collectors.joining(", "));
		if (storeModules.size() == 1) {
			return "lock.store is not set, and the lock store module on the classpath (" + modules
					+ ") is used only when lock.store selects it.";
		}
		return "lock.store is not set, and more than one lock store module is on the classpath (" + modules
				+ "), so the lock store to use is not known.";
	}

	private static String action(List<Store> storeModules) {
		List<String> values = Stream.concat(storeModules.stream(), Stream.of(Store.MEMORY))
			.map(LockStoreConfigurations::propertyValue)
			.toList();
		return "Set lock.store to " + String.join(", ", values.subList(0, values.size() - 1)) + " or "
				+ values.get(values.size() - 1)
				+ " (memory keeps locks in this instance only), and configure the chosen store.";
	}

}
