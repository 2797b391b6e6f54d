package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.MultiKeyAcquireReply;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.util.Assert;

import static dev.lockstarter.store.redis.RedisLockScripts.ACQUIRE_ALL;
import static dev.lockstarter.store.redis.RedisLockScripts.EXTEND_ALL;
import static dev.lockstarter.store.redis.RedisLockScripts.RELEASE_ALL;
import static dev.lockstarter.store.redis.RedisLockScripts.millis;

/**
 * The operations of the store on several locks at once. A script may touch the keys of
 * one hash slot only on a Redis Cluster, so the keys are grouped by slot (one group
 * elsewhere), one script runs per group, and all of them go out at once.
 */
final class MultiKeyLocks {

	private final RedisKeys keys;

	private final RedisCommandExecutor executor;

	private final ReleaseNotifications notifications;

	private final ReplicaAcknowledgements replicaAcks;

	MultiKeyLocks(RedisKeys keys, RedisCommandExecutor executor, ReleaseNotifications notifications,
			ReplicaAcknowledgements replicaAcks) {
		this.keys = keys;
		this.executor = executor;
		this.notifications = notifications;
		this.replicaAcks = replicaAcks;
	}

	/**
	 * Acquire the locks of several keys: one atomic script for keys of one hash slot; one
	 * by one in order for keys of several slots of a Redis Cluster, or with replica
	 * acknowledgements.
	 * @param keys the store keys, not empty
	 * @param token the owner token
	 * @param ttl the time-to-live
	 * @param acquire the acquisition of one key
	 * @return acquired, or the first key held
	 */
	MultiKeyAcquireReply acquireAll(List<String> keys, String token, Duration ttl, SingleAcquire acquire) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		if (this.replicaAcks.required() || spanSlots(keys)) {
			return tryAcquireInOrder(keys, token, ttl, acquire);
		}
		return tryAcquireInOneSlot(keys, token, ttl);
	}

	/**
	 * Extend several locks, each by its own token: {@code EXTEND_ALL} per slot, or one by
	 * one with replica acknowledgements.
	 * @param keys the store keys
	 * @param tokens the token of each key
	 * @param ttl the new time-to-live
	 * @param extend the extension of one lock
	 * @return whether each lock was extended
	 */
	boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl, SingleExtend extend) {
		Assert.isTrue(keys.size() == tokens.size(), "'keys' and 'tokens' must have the same size");
		if (this.replicaAcks.required()) {
			boolean[] extended = new boolean[keys.size()];
			for (int i = 0; i < extended.length; i++) {
				extended[i] = extend.extend(keys.get(i), tokens.get(i), ttl);
			}
			return extended;
		}
		return keys.isEmpty() ? new boolean[0] : extendAll(keys, tokens, ttl);
	}

	/**
	 * Release several locks of one token, none when there are no keys.
	 * @param keys the store keys
	 * @param token the owner token
	 * @return whether each lock was released
	 */
	boolean[] releaseEach(List<String> keys, String token) {
		return keys.isEmpty() ? new boolean[0] : releaseAll(keys, token);
	}

	private boolean spanSlots(List<String> keys) {
		return slotGroups(new RedisOperation("acquire", keys.get(0)), keys).size() > 1;
	}

	/**
	 * Acquire the locks of keys in one hash slot with {@code ACQUIRE_ALL}: all or none.
	 * @param keys the store keys
	 * @param token the owner token
	 * @param ttl the time-to-live
	 * @return acquired, without fencing tokens (drawn on demand), or the first key held
	 */
	private MultiKeyAcquireReply tryAcquireInOneSlot(List<String> keys, String token, Duration ttl) {
		int n = keys.size();
		List<String> lockKeys = new ArrayList<>(n);
		boolean watched = false;
		for (String key : keys) {
			String lockKey = this.keys.lockKey(key);
			lockKeys.add(lockKey);
			watched |= this.notifications.isWatched(lockKey);
		}
		@SuppressWarnings("rawtypes")
		List answer = this.executor.eval(new RedisOperation("acquire " + n + " locks, among them", keys.get(0)),
				ScriptCall.of(ACQUIRE_ALL, lockKeys, token, millis(ttl), watched ? "1" : "0"));
		if (answer == null || answer.isEmpty() || !(answer.get(0) instanceof Long first)) {
			throw new LockStoreException(keys.get(0),
					"Redis lock store got no answer to acquire " + n + " locks, among them '" + keys.get(0) + "'",
					new IllegalStateException("Reply: " + answer));
		}
		if (first > 0) {
			long remaining = (answer.size() > 1 && answer.get(1) instanceof Long ttlMillis) ? ttlMillis : 0;
			return MultiKeyAcquireReply.held((int) (first - 1), Duration.ofMillis(remaining));
		}
		// Fencing tokens are drawn on demand, key by key
		return MultiKeyAcquireReply.acquired(new long[n]);
	}

	/**
	 * Acquire the locks of keys one by one, in order; when one is held, release those
	 * taken before it, by the token, in one round trip per slot.
	 * @param keys the store keys
	 * @param token the owner token
	 * @param ttl the time-to-live
	 * @param acquire the acquisition of one key
	 * @return acquired with the fencing token of each, or the first key held
	 * @throws LockStoreException when the keys taken could not be released
	 */
	private MultiKeyAcquireReply tryAcquireInOrder(List<String> keys, String token, Duration ttl,
			SingleAcquire acquire) {
		long[] fencingTokens = new long[keys.size()];
		for (int i = 0; i < keys.size(); i++) {
			AcquireReply reply = acquire.tryAcquire(keys.get(i), token, ttl);
			if (!reply.isAcquired()) {
				if (i > 0) {
					try {
						releaseAll(keys.subList(0, i), token);
					}
					catch (LockStoreException ex) {
						throw new LockStoreException(
								keys.get(0), "Redis lock store found lock '" + keys.get(i)
										+ "' held and could not release the " + i + " lock(s) it had taken before it",
								ex);
					}
				}
				return MultiKeyAcquireReply.held(i, reply.holderRemainingTtl());
			}
			fencingTokens[i] = reply.fencingToken();
		}
		return MultiKeyAcquireReply.acquired(fencingTokens);
	}

	/**
	 * Extend several locks, each by its own token: {@code EXTEND_ALL} per slot.
	 * @param keys the store keys
	 * @param tokens the token of each key
	 * @param ttl the new time-to-live
	 * @return whether each lock was extended
	 */
	private boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl) {
		RedisOperation operation = new RedisOperation("extend " + keys.size() + " locks, among them", keys.get(0));
		return perSlot(operation, keys, (indexes) -> {
			List<String> args = new ArrayList<>(indexes.size() + 1);
			args.add(millis(ttl));
			indexes.forEach((index) -> args.add(tokens.get(index)));
			return ScriptCall.of(EXTEND_ALL, lockKeys(keys, indexes), args.toArray());
		});
	}

	/**
	 * Release several locks of one token: {@code RELEASE_ALL} per slot, each lock that a
	 * waiter watched announced on its channel.
	 * @param keys the store keys
	 * @param token the owner token
	 * @return whether each lock was released
	 */
	boolean[] releaseAll(List<String> keys, String token) {
		RedisOperation operation = new RedisOperation("release " + keys.size() + " locks, among them", keys.get(0));
		RedisTopology topology = this.notifications.topology(new RedisOperation("release", keys.get(0)));
		return perSlot(operation, keys, (indexes) -> {
			List<String> args = new ArrayList<>(indexes.size() + 2);
			args.add(token);
			args.add(topology.shardedFlag());
			indexes.forEach((index) -> args.add(this.notifications.channel(keys.get(index), topology)));
			return ScriptCall.of(RELEASE_ALL, lockKeys(keys, indexes), args.toArray());
		});
	}

	/**
	 * Run one script per slot group, all at once, and spread the answers, 1 or 0 per key,
	 * back to the keys' positions.
	 */
	@SuppressWarnings("rawtypes")
	private boolean[] perSlot(RedisOperation operation, List<String> keys,
			Function<List<Integer>, ScriptCall<List>> callOfGroup) {
		List<List<Integer>> groups = slotGroups(operation, keys);
		List<ScriptCall<List>> calls = groups.stream().map(callOfGroup).toList();
		List<@Nullable List> answers = this.executor.evalEach(operation, calls);
		boolean[] done = new boolean[keys.size()];
		for (int group = 0; group < groups.size() && group < answers.size(); group++) {
			List<Integer> indexes = groups.get(group);
			List<?> answer = answers.get(group);
			for (int i = 0; i < indexes.size() && answer != null && i < answer.size(); i++) {
				done[indexes.get(i)] = Long.valueOf(1L).equals(answer.get(i));
			}
		}
		return done;
	}

	private List<String> lockKeys(List<String> keys, List<Integer> indexes) {
		return indexes.stream().map((index) -> this.keys.lockKey(keys.get(index))).toList();
	}

	/**
	 * Group the indexes of keys by the hash slot of their lock: one group on a server
	 * that is not a cluster, whose scripts may touch any key.
	 */
	private List<List<Integer>> slotGroups(RedisOperation operation, List<String> keys) {
		Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
		boolean cluster = this.notifications.topology(operation).cluster();
		for (int i = 0; i < keys.size(); i++) {
			int slot = cluster ? ClusterSlotHashUtil.calculateSlot(this.keys.lockKey(keys.get(i))) : 0;
			bySlot.computeIfAbsent(slot, (s) -> new ArrayList<>()).add(i);
		}
		return new ArrayList<>(bySlot.values());
	}

	/**
	 * The acquisition of one lock, as the store makes it.
	 */
	@FunctionalInterface
	interface SingleAcquire {

		AcquireReply tryAcquire(String key, String token, Duration ttl);

	}

	/**
	 * The extension of one lock, as the store makes it.
	 */
	@FunctionalInterface
	interface SingleExtend {

		boolean extend(String key, String token, Duration ttl);

	}

}
