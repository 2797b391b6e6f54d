package dev.lockstarter.store.memory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.StampedLock;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ReactiveResultStoringLockStore;
import dev.lockstarter.store.ReleaseListeners;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import dev.lockstarter.store.SharedLockStore;
import dev.lockstarter.store.StoredLock;
import org.springframework.util.Assert;

/**
 * {@link dev.lockstarter.store.LockStore} in this JVM's memory, for applications that run
 * as a single instance, and for tests.
 * <p>
 * Locks are not shared between processes and vanish when the process stops. Expiry uses
 * the monotonic {@link System#nanoTime()} clock, so wall-clock changes do not affect it.
 * Each operation is one atomic {@link ConcurrentHashMap} update. Expired entries are
 * reclaimed: an acquisition that finds one replaces it, and a sweep of the whole map runs
 * at most once per {@value #SWEEP_INTERVAL_MILLIS} ms, on the thread of an acquisition,
 * so the map holds no more than the keys locked since the previous sweep.
 * <p>
 * Fencing tokens come from one counter for all keys, so they strictly increase per key
 * for the life of the store. Releases are announced to waiters of the same store at once.
 * Results kept next to locks live in a second map with the same expiry rules and sweep,
 * and permits and read/write locks ({@link SharedLockStore}) in a third. The locks held
 * are listed and force-released by {@link InspectableLockStore}'s methods.
 * <p>
 * Each map holds at most {@code maxEntries} unexpired entries
 * ({@value #DEFAULT_MAX_ENTRIES} by default): a lock or a result beyond it, after a
 * sweep, fails with a {@link LockStoreException}, so that callers who take many keys
 * cannot exhaust the heap.
 * <p>
 * The locks of several keys are taken and released atomically
 * ({@link MultiKeyLockStore}): such an operation excludes every acquisition and extension
 * on the store for its duration (operations on one key run concurrently with each other),
 * so no caller ever sees part of a set held.
 *
 * @since 0.1.0
 */
public class InMemoryLockStore implements ReleaseNotifyingLockStore, ResultStoringLockStore, MultiKeyLockStore,
		ReactiveResultStoringLockStore, SharedLockStore, InspectableLockStore {

	static final long SWEEP_INTERVAL_MILLIS = 1000;

	/** The default bound of each of the two maps, locks and results. */
	public static final int DEFAULT_MAX_ENTRIES = 100_000;

	private final Map<String, LockEntry> locks = new ConcurrentHashMap<>();

	private final InMemoryResults results = new InMemoryResults();

	private final LongSupplier nanoClock;

	private final AtomicLong fencingTokens = new AtomicLong();

	private final ReleaseListeners listeners = new ReleaseListeners();

	private final InMemorySharedLocks shared;

	private final InMemoryCapacity capacity;

	/**
	 * Shared by the acquisitions and extensions of one key, exclusive for the operations
	 * on several keys, which must see and change their keys as one. A single-key
	 * acquisition first runs under an optimistic read, and takes the read lock only if an
	 * operation on several keys overlapped it. A single-key release takes neither: it
	 * only frees a key, and an operation on several keys that saw the key still held
	 * reports a conflict that was true when it looked. Not reentrant, and never
	 * re-entered.
	 */
	private final StampedLock keySets = new StampedLock();

	/**
	 * Create a store on the system's monotonic clock, holding at most
	 * {@value #DEFAULT_MAX_ENTRIES} locks and as many results.
	 */
	public InMemoryLockStore() {
		this(DEFAULT_MAX_ENTRIES);
	}

	/**
	 * Create a store on the system's monotonic clock.
	 * @param maxEntries the most unexpired locks it holds, and the most results
	 */
	public InMemoryLockStore(int maxEntries) {
		this(System::nanoTime, maxEntries);
	}

	/**
	 * Create a store on the given monotonic clock, for tests.
	 * @param nanoClock a source of monotonic nanoseconds, like {@link System#nanoTime()}
	 */
	InMemoryLockStore(LongSupplier nanoClock) {
		this(nanoClock, DEFAULT_MAX_ENTRIES);
	}

	InMemoryLockStore(LongSupplier nanoClock, int maxEntries) {
		Assert.notNull(nanoClock, "'nanoClock' must not be null");
		Assert.isTrue(maxEntries > 0, "'maxEntries' must be positive");
		this.nanoClock = nanoClock;
		this.shared = new InMemorySharedLocks(this.fencingTokens, maxEntries);
		this.capacity = new InMemoryCapacity(this.locks, this.results, this.shared, maxEntries, nanoClock.getAsLong());
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		// Under an optimistic read of the key-set lock. An acquisition that overlapped an
		// operation on several keys waits for it to end (the read lock): if its entry is
		// still in place, the other operation saw it, or did not touch the key, and the
		// acquisition stands; if that operation wrote over it, the acquisition did not
		// happen and is tried again. The entry is never withdrawn, since another caller
		// may have been refused because of it meanwhile.
		long optimistic = this.keySets.tryOptimisticRead();
		@Nullable LockEntry tried = null;
		@Nullable AcquireReply result = null;
		if (optimistic != 0) {
			long now = this.nanoClock.getAsLong();
			tried = new LockEntry(token, now + ttl.toNanos());
			result = acquire(key, token, now, tried);
			if (this.keySets.validate(optimistic)) {
				return result;
			}
		}
		long shared = this.keySets.readLock();
		try {
			if (result != null && result.isAcquired() && this.locks.get(key) == tried) {
				return result;
			}
			long now = this.nanoClock.getAsLong();
			return acquire(key, token, now, new LockEntry(token, now + ttl.toNanos()));
		}
		finally {
			this.keySets.unlockRead(shared);
		}
	}

	private AcquireReply acquire(String key, String token, long now, LockEntry entry) {
		this.capacity.sweepIfDue(now);
		this.capacity.ensureRoom(this.locks, key, 1, now);
		LockEntry existing = this.locks.putIfAbsent(key, entry);
		while (existing != null) {
			if (!existing.isExpired(now)) {
				return existing.token.equals(token) ? AcquireReply.acquired(existing.fencingToken)
						: AcquireReply.held(Duration.ofNanos(existing.expiresAt - now));
			}
			existing = this.locks.replace(key, existing, entry) ? null : this.locks.putIfAbsent(key, entry);
		}
		// The fencing token is drawn once the entry is in the map, and counts only if the
		// entry is still there afterwards. A later holder puts its entry in after that
		// check, so draws a greater token. A holder whose entry expired and was replaced
		// before its check did not acquire: the token it drew, perhaps after its
		// successor's, is never used.
		entry.fencingToken = this.fencingTokens.incrementAndGet();
		if (this.locks.get(key) != entry) {
			return AcquireReply.held(Duration.ZERO);
		}
		return AcquireReply.acquired(entry.fencingToken);
	}

	@Override
	public MultiKeyAcquireReply tryAcquireAll(List<String> keys, String token, Duration ttl) {
		long exclusive = this.keySets.writeLock();
		try {
			long now = this.nanoClock.getAsLong();
			this.capacity.sweepIfDue(now);
			this.capacity.ensureRoom(this.locks, keys.get(0), keys.size(), now);
			for (int i = 0; i < keys.size(); i++) {
				LockEntry existing = this.locks.get(keys.get(i));
				if (existing != null && !existing.isExpired(now)) {
					return MultiKeyAcquireReply.held(i, Duration.ofNanos(existing.expiresAt - now));
				}
			}
			long[] fencingTokens = new long[keys.size()];
			for (int i = 0; i < keys.size(); i++) {
				fencingTokens[i] = this.fencingTokens.incrementAndGet();
				this.locks.put(keys.get(i), new LockEntry(token, now + ttl.toNanos(), fencingTokens[i]));
			}
			return MultiKeyAcquireReply.acquired(fencingTokens);
		}
		finally {
			this.keySets.unlockWrite(exclusive);
		}
	}

	@Override
	public boolean[] releaseAll(List<String> keys, String token) {
		boolean[] deleted = new boolean[keys.size()];
		long exclusive = this.keySets.writeLock();
		try {
			for (int i = 0; i < keys.size(); i++) {
				deleted[i] = delete(keys.get(i), token);
			}
		}
		finally {
			this.keySets.unlockWrite(exclusive);
		}
		for (int i = 0; i < keys.size(); i++) {
			if (deleted[i]) {
				this.listeners.released(keys.get(i));
			}
		}
		return deleted;
	}

	@Override
	public boolean release(String key, String token) {
		boolean deleted = delete(key, token);
		if (deleted) {
			this.listeners.released(key);
		}
		return deleted;
	}

	private boolean delete(String key, String token) {
		long now = this.nanoClock.getAsLong();
		LockEntry existing = this.locks.get(key);
		while (existing != null) {
			boolean expired = existing.isExpired(now);
			if (!expired && !existing.token.equals(token)) {
				return false;
			}
			if (this.locks.remove(key, existing)) {
				return !expired;
			}
			// Replaced meanwhile (extended by its owner, or taken after it expired)
			existing = this.locks.get(key);
		}
		return false;
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		long shared = this.keySets.readLock();
		try {
			long now = this.nanoClock.getAsLong();
			boolean[] extended = new boolean[1];
			this.locks.computeIfPresent(key, (k, existing) -> {
				if (existing.isExpired(now)) {
					return null;
				}
				if (existing.token.equals(token)) {
					extended[0] = true;
					return new LockEntry(token, now + ttl.toNanos(), existing.fencingToken);
				}
				return existing;
			});
			return extended[0];
		}
		finally {
			this.keySets.unlockRead(shared);
		}
	}

	@Override
	public Duration timeToExpiry(String key) {
		LockEntry existing = this.locks.get(key);
		long now = this.nanoClock.getAsLong();
		return (existing == null || existing.isExpired(now)) ? Duration.ZERO
				: Duration.ofNanos(existing.expiresAt - now);
	}

	@Override
	public List<StoredLock> holders(String keyPrefix, int limit) {
		Assert.isTrue(limit > 0, "'limit' must be positive");
		long now = this.nanoClock.getAsLong();
		List<StoredLock> holders = new ArrayList<>();
		this.locks.forEach((key, entry) -> {
			if (key.startsWith(keyPrefix) && !entry.isExpired(now)) {
				holders
					.add(new StoredLock(key, entry.token, Duration.ofNanos(entry.expiresAt - now), entry.fencingToken));
			}
		});
		holders.sort(Comparator.comparing(StoredLock::key));
		return (holders.size() > limit) ? List.copyOf(holders.subList(0, limit)) : holders;
	}

	@Override
	public boolean forceRelease(String key) {
		LockEntry removed;
		long shared = this.keySets.readLock();
		try {
			removed = this.locks.remove(key);
		}
		finally {
			this.keySets.unlockRead(shared);
		}
		boolean held = removed != null && !removed.isExpired(this.nanoClock.getAsLong());
		if (held) {
			this.listeners.released(key);
		}
		return held;
	}

	@Override
	public boolean putResult(String key, String token, byte[] result, Duration ttl) {
		long now = this.nanoClock.getAsLong();
		this.capacity.ensureRoom(this.results.entries(), key, 1, now);
		boolean[] stored = new boolean[1];
		// Stored inside the lock's entry update, so that no other owner can take the lock
		// between
		// the owner check and the write.
		this.locks.computeIfPresent(key, (k, existing) -> {
			if (!existing.isExpired(now) && existing.token.equals(token)) {
				this.results.put(key, result, now + ttl.toNanos());
				stored[0] = true;
			}
			return existing;
		});
		return stored[0];
	}

	@Override
	public byte @Nullable [] getResult(String key) {
		return this.results.get(key, this.nanoClock.getAsLong());
	}

	@Override
	public AcquireReply tryAcquirePermit(String key, String token, Duration ttl, int permits) {
		return acquireShared(key, token, ttl, InMemorySharedLocks.Place.Kind.PERMIT, permits, Duration.ZERO);
	}

	@Override
	public AcquireReply tryAcquireRead(String key, String token, Duration ttl) {
		return acquireShared(key, token, ttl, InMemorySharedLocks.Place.Kind.READ, 0, Duration.ZERO);
	}

	@Override
	public AcquireReply tryAcquireWrite(String key, String token, Duration ttl, Duration waitFor) {
		return acquireShared(key, token, ttl, InMemorySharedLocks.Place.Kind.WRITE, 1, waitFor);
	}

	private AcquireReply acquireShared(String key, String token, Duration ttl, InMemorySharedLocks.Place.Kind kind,
			int permits, Duration waitFor) {
		long now = this.nanoClock.getAsLong();
		this.capacity.sweepIfDue(now);
		return this.shared.acquire(key, token, ttl.toNanos(), now, kind, permits, waitFor.toNanos());
	}

	@Override
	public boolean releaseShared(String key, String token) {
		boolean released = this.shared.release(key, token, this.nanoClock.getAsLong());
		if (released) {
			this.listeners.released(key);
		}
		return released;
	}

	@Override
	public boolean extendShared(String key, String token, Duration ttl) {
		return this.shared.extend(key, token, ttl.toNanos(), this.nanoClock.getAsLong());
	}

	@Override
	public Duration sharedTimeToExpiry(String key) {
		return this.shared.timeToExpiry(key, this.nanoClock.getAsLong());
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Answered on the subscriber's thread: the in-memory store never waits for I/O.
	 */
	@Override
	public Mono<AcquireReply> tryAcquireReactive(String key, String token, Duration ttl) {
		return Mono.fromSupplier(() -> tryAcquire(key, token, ttl));
	}

	@Override
	public Mono<Boolean> releaseReactive(String key, String token) {
		return Mono.fromSupplier(() -> release(key, token));
	}

	@Override
	public Mono<Boolean> extendReactive(String key, String token, Duration ttl) {
		return Mono.fromSupplier(() -> extend(key, token, ttl));
	}

	@Override
	public Mono<Boolean> putResultReactive(String key, String token, byte[] result, Duration ttl) {
		return Mono.fromSupplier(() -> putResult(key, token, result, ttl));
	}

	@Override
	public Mono<byte[]> getResultReactive(String key) {
		return Mono.fromSupplier(() -> getResult(key));
	}

	@Override
	public Subscription subscribe(String key, Runnable listener) {
		return this.listeners.add(key, listener);
	}

	/**
	 * Return the number of entries currently kept, expired or not.
	 * @return the map's size
	 */
	int size() {
		return this.locks.size() + this.results.size() + this.shared.size();
	}

}
