package dev.lockstarter.store.memory;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.lockstarter.store.LockStoreException;

/**
 * The room of an {@link InMemoryLockStore}'s maps: the sweep that reclaims their expired
 * entries, due at most once per {@value InMemoryLockStore#SWEEP_INTERVAL_MILLIS} ms, and
 * the bound on the unexpired entries of each map.
 */
final class InMemoryCapacity {

	private static final long SWEEP_INTERVAL_NANOS = Duration.ofMillis(InMemoryLockStore.SWEEP_INTERVAL_MILLIS)
		.toNanos();

	private final Map<String, LockEntry> locks;

	private final InMemoryResults results;

	private final InMemorySharedLocks shared;

	private final int maxEntries;

	private final AtomicLong nextSweep;

	InMemoryCapacity(Map<String, LockEntry> locks, InMemoryResults results, InMemorySharedLocks shared, int maxEntries,
			long now) {
		this.locks = locks;
		this.results = results;
		this.shared = shared;
		this.maxEntries = maxEntries;
		this.nextSweep = new AtomicLong(now + SWEEP_INTERVAL_NANOS);
	}

	void sweepIfDue(long now) {
		long due = this.nextSweep.get();
		if (now - due >= 0 && this.nextSweep.compareAndSet(due, now + SWEEP_INTERVAL_NANOS)) {
			sweep(now);
		}
	}

	private void sweep(long now) {
		this.locks.values().removeIf((entry) -> entry.isExpired(now));
		this.results.sweep(now);
		this.shared.sweep(now);
	}

	/**
	 * Refuse to add {@code count} entries to a full map, after sweeping it once. A key
	 * already in the map is replaced, not added.
	 */
	void ensureRoom(Map<String, ?> map, String key, int count, long now) {
		if (map.size() + count <= this.maxEntries || (count == 1 && map.containsKey(key))) {
			return;
		}
		sweep(now);
		if (map.size() + count > this.maxEntries) {
			throw new LockStoreException(key,
					"The in-memory lock store is full: it holds " + map.size() + " unexpired "
							+ ((map == this.locks) ? "locks" : "results") + " of at most " + this.maxEntries
							+ " (lock.memory.max-entries)",
					null);
		}
	}

}
