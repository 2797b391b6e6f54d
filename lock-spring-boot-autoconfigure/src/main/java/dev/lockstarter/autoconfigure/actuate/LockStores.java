package dev.lockstarter.autoconfigure.actuate;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.autoconfigure.LockProperties;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;

/**
 * What the endpoint and the health indicator say about the lock store and the keys it
 * holds, from the {@link LockTemplate} when the application uses one.
 */
final class LockStores {

	private LockStores() {
	}

	/**
	 * Return the kind of store: the template's name for it, or else the store's simple
	 * class name without {@code LockStore}, in lower case.
	 */
	static String kind(LockStore store, @Nullable LockOperations locks) {
		if (locks instanceof LockTemplate template) {
			return template.getStoreName();
		}
		String name = store.getClass().getSimpleName();
		if (name.endsWith("LockStore") && name.length() > "LockStore".length()) {
			name = name.substring(0, name.length() - "LockStore".length());
		}
		return name.toLowerCase(Locale.ROOT);
	}

	/**
	 * Return the prefix of the store keys: the template's, or else the configured one.
	 */
	static String keyPrefix(@Nullable LockOperations locks, LockProperties properties) {
		return (locks instanceof LockTemplate template) ? template.getKeyPrefix() : properties.getKeyPrefix();
	}

}
