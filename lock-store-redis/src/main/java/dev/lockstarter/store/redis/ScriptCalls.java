package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.List;

import static dev.lockstarter.store.redis.RedisLockScripts.ACQUIRE;
import static dev.lockstarter.store.redis.RedisLockScripts.ACQUIRE_FENCED;
import static dev.lockstarter.store.redis.RedisLockScripts.ACQUIRE_READING;
import static dev.lockstarter.store.redis.RedisLockScripts.EXTEND;
import static dev.lockstarter.store.redis.RedisLockScripts.FENCE;
import static dev.lockstarter.store.redis.RedisLockScripts.FENCE_RETENTION_MILLIS;
import static dev.lockstarter.store.redis.RedisLockScripts.PUT_RESULT;
import static dev.lockstarter.store.redis.RedisLockScripts.RELEASE;
import static dev.lockstarter.store.redis.RedisLockScripts.RELEASE_KEEPING;
import static dev.lockstarter.store.redis.RedisLockScripts.TIME_TO_EXPIRY;
import static dev.lockstarter.store.redis.RedisLockScripts.millis;

/**
 * The runs of the single-lock scripts of {@link RedisLockScripts}: for a store key, the
 * Redis keys ({@link RedisKeys}) and the arguments in the order each script reads them,
 * with the watched flag and the release channel that {@link ReleaseNotifications} knows.
 */
final class ScriptCalls {

	private final RedisKeys keys;

	private final ReleaseNotifications notifications;

	ScriptCalls(RedisKeys keys, ReleaseNotifications notifications) {
		this.keys = keys;
		this.notifications = notifications;
	}

	ScriptCall<Long> acquire(String lockKey, String token, Duration ttl, String watch) {
		return ScriptCall.of(ACQUIRE, List.of(lockKey), token, millis(ttl), watch);
	}

	ScriptCall<Long> acquireFenced(String key, String token, Duration ttl) {
		String lockKey = this.keys.lockKey(key);
		return ScriptCall.of(ACQUIRE_FENCED, List.of(lockKey, this.keys.related(key, "fence")), token, millis(ttl),
				this.notifications.watch(lockKey), FENCE_RETENTION_MILLIS);
	}

	@SuppressWarnings("rawtypes")
	ScriptCall<List> acquireReading(String key, String token, Duration ttl) {
		String lockKey = this.keys.lockKey(key);
		return ScriptCall.of(ACQUIRE_READING, List.of(lockKey, this.keys.related(key, "result")), token, millis(ttl),
				this.notifications.watch(lockKey));
	}

	ScriptCall<Long> fence(String key, String token) {
		return ScriptCall.of(FENCE, List.of(this.keys.lockKey(key), this.keys.related(key, "fence")), token,
				FENCE_RETENTION_MILLIS);
	}

	ScriptCall<Long> release(String key, String token) {
		RedisTopology topology = this.notifications.topology(new RedisOperation("release", key));
		return ScriptCall.of(RELEASE, List.of(this.keys.lockKey(key)), token, this.notifications.channel(key, topology),
				topology.shardedFlag());
	}

	ScriptCall<Long> releaseKeeping(String key, String token, byte[] result, Duration ttl) {
		RedisTopology topology = this.notifications.topology(new RedisOperation("release", key));
		return ScriptCall.of(RELEASE_KEEPING, List.of(this.keys.lockKey(key), this.keys.related(key, "result")), token,
				this.notifications.channel(key, topology), topology.shardedFlag(), result, millis(ttl));
	}

	ScriptCall<Long> extend(String key, String token, Duration ttl) {
		return ScriptCall.of(EXTEND, List.of(this.keys.lockKey(key)), token, millis(ttl));
	}

	ScriptCall<Long> timeToExpiry(String key) {
		return ScriptCall.of(TIME_TO_EXPIRY, List.of(this.keys.lockKey(key)));
	}

	ScriptCall<Long> putResult(String key, String token, byte[] result, Duration ttl) {
		return ScriptCall.of(PUT_RESULT, List.of(this.keys.lockKey(key), this.keys.related(key, "result")), token,
				result, millis(ttl));
	}

	/**
	 * Return the key that keeps the result of a lock, for a plain {@code GET}.
	 * @param key the store key
	 * @return the result key, encoded
	 */
	byte[] resultKey(String key) {
		return ScriptCall.bytes(this.keys.related(key, "result"));
	}

}
