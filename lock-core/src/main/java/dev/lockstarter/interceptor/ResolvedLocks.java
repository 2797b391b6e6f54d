package dev.lockstarter.interceptor;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.LockCapabilities;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockResults;

/**
 * The lock operations of the interceptor with their abilities, resolved once, on first
 * use: the kind of store for observations, and the kept results of single-flight methods
 * when the store keeps them.
 *
 * @param operations the lock operations
 * @param storeName the kind of store, {@code unknown} when the operations do not tell
 * @param keptResults the results kept next to locks, or {@code null}
 */
record ResolvedLocks(LockOperations operations, String storeName, @Nullable LockResults keptResults) {

	static ResolvedLocks of(LockOperations operations) {
		return new ResolvedLocks(operations, LockCapabilities.storeName(operations), operations.results().orElse(null));
	}

	/**
	 * The kept results, for a single-flight method.
	 * @throws IllegalStateException if the store keeps no results
	 */
	LockResults results() {
		LockResults results = this.keptResults;
		if (results == null) {
			throw noResults(this.operations);
		}
		return results;
	}

	static IllegalStateException noResults(Object operations) {
		return new IllegalStateException("@ExclusiveRequest(onConflict = SHARE_RESULT) needs a lock store that keeps "
				+ "results; the lock operations " + operations.getClass().getName() + " keep none");
	}

}
