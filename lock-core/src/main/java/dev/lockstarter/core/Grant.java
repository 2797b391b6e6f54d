package dev.lockstarter.core;

import java.util.List;

/**
 * What an acquisition was granted, for its {@link LeaseKind} to make the lease of.
 *
 * @param store the store that keeps the locks: the mutex store, or its shared view
 * @param keys the keys, in store-key order
 * @param storeKeys the store keys, in the same order
 * @param token the owner token
 * @param fencingTokens each key's fencing token, in the same order
 * @param options the options
 * @param sentAt when the granting try was sent, from {@link System#nanoTime()}
 */
record Grant(StoreCapabilities store, List<String> keys, List<String> storeKeys, String token, List<Long> fencingTokens,
		LockOptions options, long sentAt) {

}
