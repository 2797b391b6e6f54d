package dev.lockstarter.store.memory;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;

/**
 * The shared locks of an {@link InMemoryLockStore}: per key, the places held (each with
 * its owner token, kind, expiry and fencing token) and the writers waiting. Each
 * operation is one atomic {@link ConcurrentHashMap#compute} of the key's entry, which
 * drops expired places and waits first; a key left with neither is removed.
 */
final class InMemorySharedLocks {

	private final Map<String, Holders> keys = new ConcurrentHashMap<>();

	private final AtomicLong fencingTokens;

	private final int maxEntries;

	InMemorySharedLocks(AtomicLong fencingTokens, int maxEntries) {
		this.fencingTokens = fencingTokens;
		this.maxEntries = maxEntries;
	}

	AcquireReply acquire(String key, String token, long ttlNanos, long now, Place.Kind kind, int permits,
			long waitForNanos) {
		ensureRoom(key, now);
		AcquireReply[] reply = new AcquireReply[1];
		this.keys.compute(key, (k, existing) -> {
			Holders holders = (existing != null) ? existing : new Holders();
			holders.expire(now);
			reply[0] = holders.admit(token, kind, permits, now, ttlNanos, waitForNanos, this.fencingTokens);
			return holders.isEmpty() ? null : holders;
		});
		return reply[0];
	}

	boolean release(String key, String token, long now) {
		boolean[] released = new boolean[1];
		this.keys.computeIfPresent(key, (k, holders) -> {
			holders.expire(now);
			holders.waitingWriters.remove(token);
			released[0] = holders.places.remove(token) != null;
			return holders.isEmpty() ? null : holders;
		});
		return released[0];
	}

	boolean extend(String key, String token, long ttlNanos, long now) {
		boolean[] extended = new boolean[1];
		this.keys.computeIfPresent(key, (k, holders) -> {
			holders.expire(now);
			Place place = holders.places.get(token);
			if (place != null) {
				holders.places.put(token, new Place(place.kind(), now + ttlNanos, place.fencingToken()));
				extended[0] = true;
			}
			return holders.isEmpty() ? null : holders;
		});
		return extended[0];
	}

	Duration timeToExpiry(String key, long now) {
		long[] longest = new long[1];
		this.keys.computeIfPresent(key, (k, holders) -> {
			holders.expire(now);
			longest[0] = holders.longestRemaining(now);
			return holders.isEmpty() ? null : holders;
		});
		return Duration.ofNanos(longest[0]);
	}

	int size() {
		return this.keys.size();
	}

	void sweep(long now) {
		for (String key : this.keys.keySet()) {
			this.keys.computeIfPresent(key, (k, holders) -> {
				holders.expire(now);
				return holders.isEmpty() ? null : holders;
			});
		}
	}

	private void ensureRoom(String key, long now) {
		if (this.keys.size() < this.maxEntries || this.keys.containsKey(key)) {
			return;
		}
		sweep(now);
		if (this.keys.size() >= this.maxEntries) {
			throw new LockStoreException(key, "The in-memory lock store is full: it holds " + this.keys.size()
					+ " shared locks of at most " + this.maxEntries + " (lock.memory.max-entries)", null);
		}
	}

	/** A place held on a shared lock. */
	record Place(Kind kind, long expiresAt, long fencingToken) {

		enum Kind {

			PERMIT, READ, WRITE

		}

	}

	/**
	 * The places and waiting writers of one key, read and changed only inside a map
	 * operation on the key.
	 */
	private static final class Holders {

		final Map<String, Place> places = new HashMap<>();

		/** The waiting writers' tokens, with the end of their waits. */
		final Map<String, Long> waitingWriters = new HashMap<>();

		AcquireReply admit(String token, Place.Kind kind, int permits, long now, long ttlNanos, long waitForNanos,
				AtomicLong fencingTokens) {
			Long refusal = refusal(kind, permits, now);
			if (refusal != null) {
				if (kind == Place.Kind.WRITE && waitForNanos > 0) {
					// A writer that stops asking holds readers back for at most its TTL
					this.waitingWriters.put(token, now + Math.min(waitForNanos, ttlNanos));
				}
				return AcquireReply.held(Duration.ofNanos(refusal));
			}
			this.waitingWriters.remove(token);
			long fencingToken = fencingTokens.incrementAndGet();
			this.places.put(token, new Place(kind, now + ttlNanos, fencingToken));
			return AcquireReply.acquired(fencingToken);
		}

		/** The remaining time to report if the place is refused, or null if granted. */
		private @Nullable Long refusal(Place.Kind kind, int permits, long now) {
			switch (kind) {
				case PERMIT:
					if (this.places.size() < permits) {
						return null;
					}
					long earliest = Long.MAX_VALUE;
					for (Place place : this.places.values()) {
						earliest = Math.min(earliest, place.expiresAt() - now);
					}
					return earliest;
				case READ:
					for (Place place : this.places.values()) {
						if (place.kind() == Place.Kind.WRITE) {
							return place.expiresAt() - now;
						}
					}
					return this.waitingWriters.isEmpty() ? null : longestRemaining(now);
				default:
					return this.places.isEmpty() ? null : longestRemaining(now);
			}
		}

		void expire(long now) {
			this.places.values().removeIf((place) -> now - place.expiresAt() >= 0);
			this.waitingWriters.values().removeIf((until) -> now - until >= 0);
		}

		long longestRemaining(long now) {
			long longest = 0;
			for (Place place : this.places.values()) {
				longest = Math.max(longest, place.expiresAt() - now);
			}
			return longest;
		}

		boolean isEmpty() {
			return this.places.isEmpty() && this.waitingWriters.isEmpty();
		}

	}

}
