package dev.lockstarter.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.StoredLock;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

import static dev.lockstarter.store.redis.RedisLockScripts.FORCE_RELEASE;
import static dev.lockstarter.store.redis.RedisLockScripts.READ_LOCKS;
import static dev.lockstarter.store.redis.RedisLockScripts.WATCHED;

/**
 * The store's mutex locks as an operator sees them ({@link InspectableLockStore}): the
 * listing of their holders, and their deletion whoever holds them.
 * <p>
 * A listing scans the keys that may be the lock of a store key with the prefix
 * ({@link RedisKeys#lockKeyPatterns}), on every primary of a cluster, and keeps those
 * shaped as a lock ({@link RedisKeys#storeKey}): fencing counters, results and the places
 * of shared locks never are. Redis answers a scan in no order, so every matching key is
 * scanned, and only the first {@code limit} store keys found so far are kept. Each page's
 * candidates that could still be among them are read by
 * {@link RedisLockScripts#READ_LOCKS}, at most {@value #READ_BATCH} at a time and, on a
 * cluster, one hash slot per script ({@link RedisCommandExecutor#evalEach}).
 * <p>
 * A force-release is one script, {@link RedisLockScripts#FORCE_RELEASE}, that announces
 * the release as a release does, so that waiters wake. Like a release, it does not wait
 * for replica acknowledgements.
 */
final class RedisLockInspection {

	/** The {@code COUNT} of each {@code SCAN} page. */
	static final int SCAN_COUNT = 1000;

	/** The most locks one script reads. */
	static final int READ_BATCH = 100;

	private final RedisKeys keys;

	private final RedisCommandExecutor executor;

	private final ReleaseNotifications notifications;

	RedisLockInspection(RedisKeys keys, RedisCommandExecutor executor, ReleaseNotifications notifications) {
		this.keys = keys;
		this.executor = executor;
		this.notifications = notifications;
	}

	/**
	 * List the locks held now whose store key starts with a prefix.
	 * @param keyPrefix the start of the store keys
	 * @param limit the most locks to list
	 * @return the locks, in ascending order of their store keys
	 */
	List<StoredLock> holders(String keyPrefix, int limit) {
		Assert.notNull(keyPrefix, "'keyPrefix' must not be null");
		Assert.isTrue(limit > 0, "'limit' must be positive");
		RedisOperation operation = new RedisOperation("list the holders of", keyPrefix + "*");
		boolean cluster = this.notifications.topology(operation).cluster();
		Listing listing = new Listing(keyPrefix, limit);
		for (String pattern : this.keys.lockKeyPatterns(keyPrefix)) {
			this.executor.scan(operation, ScriptCall.bytes(pattern), SCAN_COUNT, this.keys.prefix(),
					(page) -> read(operation, listing.candidates(page), cluster, listing));
		}
		return List.copyOf(listing.found.values());
	}

	/**
	 * Delete the lock on a store key, whoever holds it.
	 * @param key the store key
	 * @return whether a lock was held
	 */
	boolean forceRelease(String key) {
		Assert.notNull(key, "'key' must not be null");
		RedisOperation operation = new RedisOperation("force-release", key);
		RedisTopology topology = this.notifications.topology(operation);
		Long answer = this.executor.eval(operation, ScriptCall.of(FORCE_RELEASE, List.of(this.keys.lockKey(key)),
				this.notifications.channel(key, topology), topology.shardedFlag()));
		return answer != null && answer == 1L;
	}

	/**
	 * Read the locks of store keys, one script per batch of one slot, within one bound,
	 * and keep those held.
	 */
	@SuppressWarnings("rawtypes")
	private void read(RedisOperation operation, List<String> storeKeys, boolean cluster, Listing listing) {
		if (storeKeys.isEmpty()) {
			return;
		}
		Map<Integer, List<String>> bySlot = new LinkedHashMap<>();
		for (String storeKey : storeKeys) {
			int slot = cluster ? ClusterSlotHashUtil.calculateSlot(this.keys.lockKey(storeKey)) : 0;
			bySlot.computeIfAbsent(slot, (s) -> new ArrayList<>()).add(storeKey);
		}
		List<List<String>> batches = new ArrayList<>();
		List<ScriptCall<List>> calls = new ArrayList<>();
		for (List<String> slotKeys : bySlot.values()) {
			for (int from = 0; from < slotKeys.size(); from += READ_BATCH) {
				List<String> batch = slotKeys.subList(from, Math.min(from + READ_BATCH, slotKeys.size()));
				List<String> redisKeys = batch.stream().map(this.keys::lockKey).toList();
				batches.add(batch);
				calls.add(ScriptCall.of(READ_LOCKS, redisKeys));
			}
		}
		List<@Nullable List> answers = this.executor.evalEach(operation, calls);
		for (int i = 0; i < batches.size() && i < answers.size(); i++) {
			List<String> batch = batches.get(i);
			List<?> answer = answers.get(i);
			for (int k = 0; answer != null && k < batch.size() && 2 * k + 1 < answer.size(); k++) {
				StoredLock lock = storedLock(batch.get(k), answer.get(2 * k), answer.get(2 * k + 1));
				if (lock != null) {
					listing.add(lock);
				}
			}
		}
	}

	/**
	 * The lock that {@code READ_LOCKS} read: none when the key held no string value, or
	 * is gone. A key without expiry, which no lock of this store has, lists with none
	 * left. Its fencing token is not listed: tokens are drawn on demand from a counter
	 * that earlier holders and the key's shared locks draw from too, so the counter does
	 * not tell whether the holder drew its value.
	 */
	private static @Nullable StoredLock storedLock(String storeKey, @Nullable Object value, @Nullable Object ttl) {
		if (!(value instanceof byte[] bytes) || !(ttl instanceof Long millis) || millis == -2) {
			return null;
		}
		String holder = new String(bytes, StandardCharsets.UTF_8);
		String token = holder.endsWith(WATCHED) ? holder.substring(0, holder.length() - 1) : holder;
		if (!StringUtils.hasText(token)) {
			return null;
		}
		return new StoredLock(storeKey, token, Duration.ofMillis(Math.max(0, millis)), AcquireReply.NO_FENCING_TOKEN);
	}

	/**
	 * The first locks found so far, by store key, and which keys of a page could still be
	 * among them.
	 */
	private final class Listing {

		private final String keyPrefix;

		private final int limit;

		private final TreeMap<String, StoredLock> found = new TreeMap<>();

		Listing(String keyPrefix, int limit) {
			this.keyPrefix = keyPrefix;
			this.limit = limit;
		}

		/**
		 * The store keys of a page's lock keys that start with the prefix and come before
		 * the last lock kept, once {@code limit} are: at most {@code limit} of them, the
		 * first.
		 */
		List<String> candidates(List<byte[]> page) {
			List<String> candidates = new ArrayList<>();
			for (byte[] redisKey : page) {
				String storeKey = RedisLockInspection.this.keys.storeKey(new String(redisKey, StandardCharsets.UTF_8));
				if (storeKey != null && storeKey.startsWith(this.keyPrefix) && !this.found.containsKey(storeKey)
						&& (this.found.size() < this.limit || storeKey.compareTo(this.found.lastKey()) < 0)) {
					candidates.add(storeKey);
				}
			}
			candidates.sort(null);
			return (candidates.size() > this.limit) ? candidates.subList(0, this.limit) : candidates;
		}

		void add(StoredLock lock) {
			this.found.put(lock.key(), lock);
			if (this.found.size() > this.limit) {
				this.found.pollLastEntry();
			}
		}

	}

}
