package dev.lockstarter.core;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.FencingOnDemandLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ReleaseHandoffLockStore;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.ResultStoringLockStore;

/**
 * The abilities of one {@link LockStore}, found once when a template is built: each
 * capability interface the store implements, or {@code null} when it has not that
 * ability. The engine asks this type, never the store's class. The reactive capabilities
 * are resolved by {@link ReactiveLockTemplate}, so that this type needs no Reactor.
 */
final class StoreCapabilities {

	private final LockStore store;

	private final @Nullable MultiKeyLockStore multiKey;

	private final @Nullable ResultStoringLockStore results;

	private final @Nullable FencingOnDemandLockStore fencingOnDemand;

	private final @Nullable ReleaseNotifyingLockStore releaseNotifying;

	private final @Nullable ReleaseHandoffLockStore releaseHandoff;

	StoreCapabilities(LockStore store) {
		this.store = store;
		this.multiKey = (store instanceof MultiKeyLockStore capable) ? capable : null;
		this.results = (store instanceof ResultStoringLockStore capable) ? capable : null;
		this.fencingOnDemand = (store instanceof FencingOnDemandLockStore capable) ? capable : null;
		this.releaseNotifying = (store instanceof ReleaseNotifyingLockStore capable) ? capable : null;
		this.releaseHandoff = (store instanceof ReleaseHandoffLockStore capable) ? capable : null;
	}

	/** The store, for the operations every store has. */
	LockStore store() {
		return this.store;
	}

	/** The store as one that acquires and releases several keys in one call. */
	@Nullable MultiKeyLockStore multiKey() {
		return this.multiKey;
	}

	/** The store as one that draws fencing tokens only when asked. */
	@Nullable FencingOnDemandLockStore fencingOnDemand() {
		return this.fencingOnDemand;
	}

	/** The store as one that can acquire for a waiter from its release listener. */
	@Nullable ReleaseHandoffLockStore releaseHandoff() {
		return this.releaseHandoff;
	}

	/** Whether the store keeps single-flight results. */
	boolean keepsResults() {
		return this.results != null;
	}

	/**
	 * The store as one that keeps results, for an operation that needs it.
	 * @throws UnsupportedOperationException if the store keeps no results
	 */
	ResultStoringLockStore results() {
		ResultStoringLockStore results = this.results;
		if (results == null) {
			throw new UnsupportedOperationException(
					"Lock store " + this.store.getClass().getName() + " keeps no results");
		}
		return results;
	}

	/**
	 * Whether a waiter is woken by release notifications, so polls only as a safety net.
	 */
	boolean notifiesReleases() {
		return this.releaseNotifying != null;
	}

	/**
	 * Subscribe {@code listener} to the releases of every key, any of which may be the
	 * one that blocks the next try; none when the store announces no releases.
	 * @param storeKeys the store keys
	 * @param listener called on a store thread on each announcement
	 * @return the subscriptions, to close when the wait ends
	 */
	List<ReleaseNotifyingLockStore.Subscription> subscribe(List<String> storeKeys, Runnable listener) {
		ReleaseNotifyingLockStore notifying = this.releaseNotifying;
		if (notifying == null) {
			return List.of();
		}
		List<ReleaseNotifyingLockStore.Subscription> subscriptions = new ArrayList<>(storeKeys.size());
		for (String storeKey : storeKeys) {
			subscriptions.add(notifying.subscribe(storeKey, listener));
		}
		return subscriptions;
	}

}
