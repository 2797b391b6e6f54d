package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;

import static dev.lockstarter.store.redis.RedisLockScripts.FENCE_RETENTION_MILLIS;
import static dev.lockstarter.store.redis.RedisLockScripts.acquireReply;
import static dev.lockstarter.store.redis.RedisLockScripts.millis;

/**
 * The store's shared locks (permits and read/write locks): each operation one script of
 * {@link SharedLockScripts} on the lock's keys <code>lock:{...}:holders</code>,
 * <code>...}:writers</code>, <code>...}:fence</code> and <code>...}:watched</code>, all
 * in the lock's hash slot, beside its mutex <code>lock:{...}</code>. A release is
 * announced as the mutex's is, with the mutex's key, so the same waiters are woken.
 */
final class SharedLocks {

	private final RedisKeys keys;

	private final RedisCommandExecutor executor;

	private final ReleaseNotifications notifications;

	private final ReplicaAcknowledgements replicaAcks;

	SharedLocks(RedisKeys keys, RedisCommandExecutor executor, ReleaseNotifications notifications,
			ReplicaAcknowledgements replicaAcks) {
		this.keys = keys;
		this.executor = executor;
		this.notifications = notifications;
		this.replicaAcks = replicaAcks;
	}

	/**
	 * Take a place of a kind, with replica acknowledgements when the store asks for them.
	 * @param key the store key
	 * @param token the new holder's token
	 * @param ttl the place's time-to-live
	 * @param kind the kind of place
	 * @param limit the permits of a permit, or how long a refused writer holds new
	 * readers back, in milliseconds
	 * @return the reply
	 */
	AcquireReply acquire(String key, String token, Duration ttl, Kind kind, long limit) {
		RedisOperation operation = new RedisOperation("acquire " + kind.phrase + " of", key);
		String lockKey = this.keys.lockKey(key);
		ScriptCall<Long> call = ScriptCall.of(SharedLockScripts.ACQUIRE, keysOf(key), token, millis(ttl),
				this.notifications.watch(lockKey), FENCE_RETENTION_MILLIS, kind.code, Long.toString(limit));
		if (this.replicaAcks.required()) {
			return this.replicaAcks.acquire(this.executor, operation, call, this.notifications.topology(operation),
					() -> release(key, token));
		}
		return acquireReply(this.executor.eval(operation, call));
	}

	boolean release(String key, String token) {
		RedisOperation operation = new RedisOperation("release a place of", key);
		RedisTopology topology = this.notifications.topology(operation);
		return isOne(this.executor.eval(operation, ScriptCall.of(SharedLockScripts.RELEASE, keysOf(key), token,
				this.notifications.channel(key, topology), topology.shardedFlag(), this.keys.lockKey(key))));
	}

	boolean extend(String key, String token, Duration ttl) {
		RedisOperation operation = new RedisOperation("extend a place of", key);
		ScriptCall<Long> call = ScriptCall.of(SharedLockScripts.EXTEND, keysOf(key), token, millis(ttl));
		if (this.replicaAcks.required()) {
			return this.replicaAcks.extend(this.executor, operation, call, this.notifications.topology(operation));
		}
		return isOne(this.executor.eval(operation, call));
	}

	/**
	 * Return the longest remaining time-to-live of the key's places.
	 * @param key the store key
	 * @return the longest remaining time-to-live, or zero
	 */
	Duration timeToExpiry(String key) {
		Long answer = this.executor.eval(new RedisOperation("read the time to expiry of", key),
				ScriptCall.of(SharedLockScripts.TIME_TO_EXPIRY, List.of(this.keys.related(key, "holders"))));
		return (answer != null && answer > 0) ? Duration.ofMillis(answer) : Duration.ZERO;
	}

	private List<String> keysOf(String key) {
		return List.of(this.keys.related(key, "holders"), this.keys.related(key, "writers"),
				this.keys.related(key, "fence"), this.keys.related(key, "watched"));
	}

	private static boolean isOne(@Nullable Long answer) {
		return answer != null && answer == 1L;
	}

	/**
	 * The kind of a place, with the code that starts its member in the holders' set.
	 */
	enum Kind {

		PERMIT("p", "a permit"), READ("r", "a read place"), WRITE("w", "the write place");

		final String code;

		final String phrase;

		Kind(String code, String phrase) {
			this.code = code;
			this.phrase = phrase;
		}

	}

}
