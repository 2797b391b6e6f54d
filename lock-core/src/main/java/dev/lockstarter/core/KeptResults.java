package dev.lockstarter.core;

import java.time.Duration;

import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.util.Assert;

/**
 * The results that leases keep next to their locks ({@link Lease#putResult}): the checks
 * and store calls that the leases on one key, on several keys and for other processes
 * share.
 */
final class KeptResults {

	private KeptResults() {
	}

	/** Check the arguments of a result to keep. */
	static void check(byte[] result, Duration ttl) {
		Assert.notNull(result, "'result' must not be null");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
	}

	/**
	 * Check a result to keep and return the store that keeps it.
	 * @throws UnsupportedOperationException if the store keeps no results
	 */
	static ResultStoringLockStore storeFor(StoreCapabilities store, byte[] result, Duration ttl) {
		check(result, ttl);
		ResultStoringLockStore results = store.results();
		if (results == null) {
			throw new UnsupportedOperationException(
					"Lock store " + store.store().getClass().getName() + " keeps no results");
		}
		return results;
	}

	/** Keep a result by its lock's store key and owner token. */
	static boolean put(StoreCapabilities store, String storeKey, String token, byte[] result, Duration ttl) {
		return storeFor(store, result, ttl).putResult(storeKey, token, result, ttl);
	}

}
