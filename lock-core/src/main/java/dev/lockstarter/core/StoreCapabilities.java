package dev.lockstarter.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.FencingOnDemandLockStore;
import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ReactiveLockStore;
import dev.lockstarter.store.ReactiveResultStoringLockStore;
import dev.lockstarter.store.ReleaseHandoffLockStore;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import dev.lockstarter.store.SharedLockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;

/**
 * The abilities of one {@link LockStore}, found once when a template is built: each
 * capability interface the store implements, or {@code null} when it has not that
 * ability. This is the one place that asks a store what it is; the engine, the leases,
 * the reactive template and the inspection ask this type. Resolving a reactive ability
 * loads no Reactor class: an interface is loaded without the types its methods name.
 */
final class StoreCapabilities {

	private final LockStore store;

	private final String name;

	private final @Nullable MultiKeyLockStore multiKey;

	private final @Nullable ResultStoringLockStore results;

	private final @Nullable FencingOnDemandLockStore fencingOnDemand;

	private final @Nullable ReleaseNotifyingLockStore releaseNotifying;

	private final @Nullable ReleaseHandoffLockStore releaseHandoff;

	private final @Nullable SharedLockStore shared;

	private final @Nullable InspectableLockStore inspectable;

	private final @Nullable ReactiveLockStore reactive;

	private final @Nullable ReactiveResultStoringLockStore reactiveResults;

	StoreCapabilities(LockStore store) {
		this.store = store;
		this.name = nameOf(store);
		this.multiKey = (store instanceof MultiKeyLockStore capable) ? capable : null;
		this.results = (store instanceof ResultStoringLockStore capable) ? capable : null;
		this.fencingOnDemand = (store instanceof FencingOnDemandLockStore capable) ? capable : null;
		this.releaseNotifying = (store instanceof ReleaseNotifyingLockStore capable) ? capable : null;
		this.releaseHandoff = (store instanceof ReleaseHandoffLockStore capable) ? capable : null;
		this.shared = (store instanceof SharedLockStore capable) ? capable : null;
		this.inspectable = (store instanceof InspectableLockStore capable) ? capable : null;
		this.reactive = (store instanceof ReactiveLockStore capable) ? capable : null;
		this.reactiveResults = (store instanceof ReactiveResultStoringLockStore capable) ? capable : null;
	}

	/**
	 * The kind of a store, as meters and observations report it: the simple class name
	 * without {@code LockStore} (or {@code Store}) in lower case, {@code memory} for the
	 * in-memory store. A store that extends another {@code ...LockStore} class (a variant
	 * with one more ability, such as the JDBC store's on PostgreSQL) is of the kind of
	 * the class it extends.
	 */
	static String nameOf(LockStore store) {
		if (store instanceof InMemoryLockStore) {
			return "memory";
		}
		Class<?> type = store.getClass();
		for (Class<?> parent = type.getSuperclass(); parent != null
				&& parent.getSimpleName().endsWith("LockStore"); parent = parent.getSuperclass()) {
			type = parent;
		}
		String name = type.getSimpleName();
		for (String suffix : new String[] { "LockStore", "Store" }) {
			if (name.endsWith(suffix) && name.length() > suffix.length()) {
				name = name.substring(0, name.length() - suffix.length());
				break;
			}
		}
		return name.toLowerCase(Locale.ROOT);
	}

	/** The store, for the operations every store has. */
	LockStore store() {
		return this.store;
	}

	/** The kind of store, as {@link #nameOf} reports it. */
	String name() {
		return this.name;
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

	/** The store as one that keeps single-flight results. */
	@Nullable ResultStoringLockStore results() {
		return this.results;
	}

	/** The store as one that keeps permits and read/write locks. */
	@Nullable SharedLockStore shared() {
		return this.shared;
	}

	/** The store as one that lists its holders. */
	@Nullable InspectableLockStore inspectable() {
		return this.inspectable;
	}

	/** The store's non-blocking operations. */
	@Nullable ReactiveLockStore reactive() {
		return this.reactive;
	}

	/** The store's non-blocking reads and writes of kept results. */
	@Nullable ReactiveResultStoringLockStore reactiveResults() {
		return this.reactiveResults;
	}

	/**
	 * The abilities of the view of this store's shared locks, which announces their
	 * releases where this store announces releases; {@code null} if the store keeps no
	 * shared locks.
	 */
	@Nullable StoreCapabilities sharedView() {
		SharedLockStore shared = this.shared;
		return (shared != null) ? new StoreCapabilities(SharedLockView.of(shared, this.releaseNotifying)) : null;
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
