package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.lockstarter.store.AcquireReplyWithResult;
import dev.lockstarter.store.LockStoreException;

import static dev.lockstarter.store.redis.ExclusiveLocks.isOne;
import static dev.lockstarter.store.redis.RedisLockScripts.acquireReply;

/**
 * The results that owners of the store's exclusive locks keep: each in the key
 * <code>lock:{...}:result</code>, in the lock's hash slot, written by a script that
 * checks the owner token and read by a plain {@code GET}.
 */
final class StoredResults {

	private final RedisCommandExecutor executor;

	private final ScriptCalls calls;

	private final ReplicaAcknowledgements replicaAcks;

	private final ExclusiveLocks locks;

	StoredResults(RedisCommandExecutor executor, ScriptCalls calls, ReplicaAcknowledgements replicaAcks,
			ExclusiveLocks locks) {
		this.executor = executor;
		this.calls = calls;
		this.replicaAcks = replicaAcks;
		this.locks = locks;
	}

	boolean put(String key, String token, byte[] result, Duration ttl) {
		return isOne(this.executor.eval(new RedisOperation("store the result of", key),
				this.calls.putResult(key, token, result, ttl)));
	}

	/**
	 * Acquire the lock and read the result kept beside it: one script, or two calls with
	 * replica acknowledgements.
	 * @param key the store key
	 * @param token the owner token
	 * @param ttl the time-to-live
	 * @return the acquisition and the kept result
	 */
	AcquireReplyWithResult acquireReading(String key, String token, Duration ttl) {
		if (this.replicaAcks.required()) {
			byte[] kept = get(key);
			return new AcquireReplyWithResult(this.locks.acquire(key, token, ttl), kept);
		}
		@SuppressWarnings("rawtypes")
		List answer = this.executor.eval(new RedisOperation("acquire", key),
				this.calls.acquireReading(key, token, ttl));
		if (answer == null || answer.isEmpty() || !(answer.get(0) instanceof Long acquisition)) {
			throw new LockStoreException(key, "Redis lock store got no answer to acquire lock '" + key + "'",
					new IllegalStateException("Reply: " + answer));
		}
		byte[] kept = (answer.size() > 1 && answer.get(1) instanceof byte[] bytes) ? bytes : null;
		return new AcquireReplyWithResult(acquireReply(acquisition), kept);
	}

	/**
	 * Release the lock keeping a result, in one script: owner check, the result's
	 * {@code SET}, the {@code DEL} and the announcement.
	 * @param key the store key
	 * @param token the owner token
	 * @param result the result
	 * @param ttl how long the result is kept
	 * @return whether the lock was released
	 */
	boolean releaseKeeping(String key, String token, byte[] result, Duration ttl) {
		return isOne(this.executor.eval(new RedisOperation("release", key),
				this.calls.releaseKeeping(key, token, result, ttl)));
	}

	byte @Nullable [] get(String key) {
		return this.executor.get(new RedisOperation("read the result of", key), this.calls.resultKey(key));
	}

	Mono<Boolean> putReactive(String key, String token, byte[] result, Duration ttl) {
		return this.executor
			.evalReactive(new RedisOperation("store the result of", key),
					() -> this.calls.putResult(key, token, result, ttl))
			.map(ExclusiveLocks::isOne)
			.defaultIfEmpty(false);
	}

	Mono<byte[]> getReactive(String key) {
		return this.executor.getReactive(new RedisOperation("read the result of", key), this.calls.resultKey(key));
	}

}
