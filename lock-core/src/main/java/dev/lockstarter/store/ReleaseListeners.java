package dev.lockstarter.store;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Supplier;

/**
 * The local side of release notifications: listeners by store key, for a
 * {@link ReleaseNotifyingLockStore} to call when it learns that a key was released. Empty
 * sets are removed, so the registry holds only keys that someone waits for.
 *
 * @since 0.1.0
 */
public final class ReleaseListeners {

	private final Map<String, Set<Runnable>> listeners = new ConcurrentHashMap<>();

	private final Supplier<Set<Runnable>> newSet;

	/**
	 * Create an empty registry.
	 */
	public ReleaseListeners() {
		this(CopyOnWriteArraySet::new);
	}

	ReleaseListeners(Supplier<Set<Runnable>> newSet) {
		this.newSet = newSet;
	}

	/**
	 * Register a listener for a key. The listener joins the key's set, and a subscription
	 * leaves it, each within one atomic update of the key's entry: a listener that joins
	 * while the key's last one leaves is never added to a set already dropped.
	 * @param key the store key
	 * @param listener the listener
	 * @return the subscription that removes it
	 */
	public ReleaseNotifyingLockStore.Subscription add(String key, Runnable listener) {
		this.listeners.compute(key, (k, set) -> {
			Set<Runnable> joined = (set != null) ? set : this.newSet.get();
			joined.add(listener);
			return joined;
		});
		return () -> this.listeners.computeIfPresent(key, (k, set) -> {
			set.remove(listener);
			return set.isEmpty() ? null : set;
		});
	}

	/**
	 * Return whether anyone in this JVM listens for the release of a key: a store that
	 * announces a release only when someone may wait for it asks for the announcement
	 * when such a waiter finds the key held.
	 * @param key the store key
	 * @return whether the key has a listener
	 */
	public boolean isWatched(String key) {
		return !this.listeners.isEmpty() && this.listeners.containsKey(key);
	}

	/**
	 * Call the listeners of a released key.
	 * @param key the store key
	 */
	public void released(String key) {
		Set<Runnable> waiting = this.listeners.get(key);
		if (waiting != null) {
			waiting.forEach(Runnable::run);
		}
	}

}
