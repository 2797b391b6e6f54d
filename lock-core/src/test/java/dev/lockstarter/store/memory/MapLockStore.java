package dev.lockstarter.store.memory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.SharedLockStore;

/**
 * The sequential specification of the in-memory store, as the model checker compares it:
 * a map of mutex owners, a map of the places held on shared locks, the waiting writers
 * and a counter of fencing tokens, each operation a plain check and then a write. Time is
 * not part of it: no lock expires while it is used, and one that expired before is free.
 * <p>
 * It answers as {@link InMemoryLockStore} does when an owner asks again for what it
 * holds: a mutex or a read place is granted again; a permit is granted again only while a
 * place is free; a write place never, since the key is held.
 * <p>
 * It is correct only when called by one thread at a time. Called concurrently, it is the
 * store that checks and then acts without a lock, which the model checker must reject.
 * Its maps are concurrent ones only so that such a run answers wrongly instead of
 * corrupting a map.
 */
final class MapLockStore implements SharedLockStore, MultiKeyLockStore {

	private static final Duration REMAINING = Duration.ofSeconds(1);

	private final Map<String, String> owners = new ConcurrentHashMap<>();

	private final Map<String, Map<String, Kind>> places = new ConcurrentHashMap<>();

	private final Map<String, Set<String>> waitingWriters = new ConcurrentHashMap<>();

	private long fencingTokens;

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		String owner = this.owners.get(key);
		if (owner != null && !owner.equals(token)) {
			return AcquireReply.held(REMAINING);
		}
		this.owners.put(key, token);
		return AcquireReply.acquired(++this.fencingTokens);
	}

	@Override
	public boolean release(String key, String token) {
		if (!token.equals(this.owners.get(key))) {
			return false;
		}
		this.owners.remove(key);
		return true;
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		return token.equals(this.owners.get(key));
	}

	@Override
	public Duration timeToExpiry(String key) {
		return this.owners.containsKey(key) ? REMAINING : Duration.ZERO;
	}

	@Override
	public MultiKeyAcquireReply tryAcquireAll(List<String> keys, String token, Duration ttl) {
		for (int i = 0; i < keys.size(); i++) {
			if (this.owners.containsKey(keys.get(i))) {
				return MultiKeyAcquireReply.held(i, REMAINING);
			}
		}
		long[] fencingTokens = new long[keys.size()];
		for (int i = 0; i < keys.size(); i++) {
			this.owners.put(keys.get(i), token);
			fencingTokens[i] = ++this.fencingTokens;
		}
		return MultiKeyAcquireReply.acquired(fencingTokens);
	}

	@Override
	public boolean[] releaseAll(List<String> keys, String token) {
		boolean[] released = new boolean[keys.size()];
		for (int i = 0; i < keys.size(); i++) {
			released[i] = release(keys.get(i), token);
		}
		return released;
	}

	@Override
	public AcquireReply tryAcquirePermit(String key, String token, Duration ttl, int permits) {
		return (places(key).size() < permits) ? grant(key, token, Kind.PERMIT) : AcquireReply.held(REMAINING);
	}

	@Override
	public AcquireReply tryAcquireRead(String key, String token, Duration ttl) {
		boolean refused = places(key).containsValue(Kind.WRITE) || !waiting(key).isEmpty();
		return refused ? AcquireReply.held(REMAINING) : grant(key, token, Kind.READ);
	}

	@Override
	public AcquireReply tryAcquireWrite(String key, String token, Duration ttl, Duration waitFor) {
		if (!places(key).isEmpty()) {
			if (!waitFor.isZero()) {
				waiting(key).add(token);
			}
			return AcquireReply.held(REMAINING);
		}
		return grant(key, token, Kind.WRITE);
	}

	private AcquireReply grant(String key, String token, Kind kind) {
		waiting(key).remove(token);
		places(key).put(token, kind);
		return AcquireReply.acquired(++this.fencingTokens);
	}

	@Override
	public boolean releaseShared(String key, String token) {
		waiting(key).remove(token);
		return places(key).remove(token) != null;
	}

	@Override
	public boolean extendShared(String key, String token, Duration ttl) {
		return places(key).containsKey(token);
	}

	@Override
	public Duration sharedTimeToExpiry(String key) {
		return places(key).isEmpty() ? Duration.ZERO : REMAINING;
	}

	private Map<String, Kind> places(String key) {
		return this.places.computeIfAbsent(key, (k) -> new ConcurrentHashMap<>());
	}

	private Set<String> waiting(String key) {
		return this.waitingWriters.computeIfAbsent(key, (k) -> ConcurrentHashMap.newKeySet());
	}

	private enum Kind {

		PERMIT, READ, WRITE

	}

}
