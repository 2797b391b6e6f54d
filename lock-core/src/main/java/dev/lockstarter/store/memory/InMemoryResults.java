package dev.lockstarter.store.memory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * The results kept next to the locks of an {@link InMemoryLockStore}: a map of copies of
 * the bytes, each with its own expiry on the store's monotonic clock.
 */
final class InMemoryResults {

	private final Map<String, Result> results = new ConcurrentHashMap<>();

	/**
	 * Return the map of results, for the store's bound on its entries.
	 * @return the map
	 */
	Map<String, ?> entries() {
		return this.results;
	}

	void put(String key, byte[] value, long expiresAt) {
		this.results.put(key, new Result(value.clone(), expiresAt));
	}

	byte @Nullable [] get(String key, long now) {
		Result result = this.results.get(key);
		if (result == null || now - result.expiresAt >= 0) {
			return null;
		}
		return result.value.clone();
	}

	void sweep(long now) {
		this.results.values().removeIf((result) -> now - result.expiresAt >= 0);
	}

	int size() {
		return this.results.size();
	}

	private record Result(byte[] value, long expiresAt) {

	}

}
