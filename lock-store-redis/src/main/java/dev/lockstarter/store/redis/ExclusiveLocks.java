package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.lockstarter.store.AcquireReply;

import static dev.lockstarter.store.redis.RedisLockScripts.acquireReply;

/**
 * The store's exclusive locks: each operation one script of {@link ScriptCalls} on the
 * lock's key <code>lock:{...}</code>, or a plain {@code SET NX PX} while no waiter
 * watches it, with the {@linkplain ReplicaAcknowledgements replica acknowledgements} that
 * the store asks for.
 */
final class ExclusiveLocks {

	private final RedisKeys keys;

	private final RedisCommandExecutor executor;

	private final ReleaseNotifications notifications;

	private final ReplicaAcknowledgements replicaAcks;

	private final ScriptCalls calls;

	ExclusiveLocks(RedisKeys keys, RedisCommandExecutor executor, ReleaseNotifications notifications,
			ReplicaAcknowledgements replicaAcks, ScriptCalls calls) {
		this.keys = keys;
		this.executor = executor;
		this.notifications = notifications;
		this.replicaAcks = replicaAcks;
		this.calls = calls;
	}

	/**
	 * Acquire the lock: a plain {@code SET NX PX} while no waiter of this JVM watches it;
	 * a lock found held runs the script, which says for how long and marks it watched.
	 * @param key the store key
	 * @param token the owner token
	 * @param ttl the time-to-live
	 * @return the reply
	 */
	AcquireReply acquire(String key, String token, Duration ttl) {
		if (this.replicaAcks.required()) {
			return acquireAcknowledged(key, token, ttl);
		}
		RedisOperation operation = new RedisOperation("acquire", key);
		String lockKey = this.keys.lockKey(key);
		String watch = this.notifications.watch(lockKey);
		if (watch.equals("0") && this.executor.setIfAbsent(operation, ScriptCall.bytes(lockKey),
				ScriptCall.bytes(token), ttl.toMillis())) {
			return AcquireReply.acquired();
		}
		return acquireReply(this.executor.eval(operation, this.calls.acquire(lockKey, token, ttl, watch)));
	}

	AcquireReply acquireFenced(String key, String token, Duration ttl) {
		if (this.replicaAcks.required()) {
			return acquireAcknowledged(key, token, ttl);
		}
		return acquireReply(
				this.executor.eval(new RedisOperation("acquire", key), this.calls.acquireFenced(key, token, ttl)));
	}

	private AcquireReply acquireAcknowledged(String key, String token, Duration ttl) {
		RedisOperation operation = new RedisOperation("acquire", key);
		return this.replicaAcks.acquire(this.executor, operation, this.calls.acquireFenced(key, token, ttl),
				this.notifications.topology(operation), () -> release(key, token));
	}

	long fencingToken(String key, String token) {
		Long answer = this.executor.eval(new RedisOperation("draw the fencing token of", key),
				this.calls.fence(key, token));
		return (answer != null && answer > 0) ? answer : AcquireReply.NO_FENCING_TOKEN;
	}

	boolean release(String key, String token) {
		return isOne(this.executor.eval(new RedisOperation("release", key), this.calls.release(key, token)));
	}

	boolean extend(String key, String token, Duration ttl) {
		RedisOperation operation = new RedisOperation("extend", key);
		if (this.replicaAcks.required()) {
			return this.replicaAcks.extend(this.executor, operation, this.calls.extend(key, token, ttl),
					this.notifications.topology(operation));
		}
		return isOne(this.executor.eval(operation, this.calls.extend(key, token, ttl)));
	}

	Duration timeToExpiry(String key) {
		Long answer = this.executor.eval(new RedisOperation("read the time to expiry of", key),
				this.calls.timeToExpiry(key));
		return (answer != null && answer > 0) ? Duration.ofMillis(answer) : Duration.ZERO;
	}

	/**
	 * Acquire the lock and draw its fencing token with the script of
	 * {@link #acquireFenced}, answered off the client's I/O thread.
	 * @param key the store key
	 * @param token the owner token
	 * @param ttl the time-to-live
	 * @return the reply to come
	 */
	Mono<AcquireReply> acquireReactive(String key, String token, Duration ttl) {
		if (this.replicaAcks.required()) {
			return RedisCommandExecutor.offloaded(() -> acquireFenced(key, token, ttl));
		}
		return this.executor
			.evalReactive(new RedisOperation("acquire", key), () -> this.calls.acquireFenced(key, token, ttl))
			.map(RedisLockScripts::acquireReply)
			.switchIfEmpty(Mono.fromSupplier(() -> acquireReply(null)));
	}

	/**
	 * Acquire the lock from the thread that read the announcement of its release, on the
	 * subscribed connection when Redis lets it run commands (RESP3, on a primary), else
	 * on an open shared connection; empty with replica acknowledgements, or when the
	 * executor cannot send from there.
	 * @param key the store key
	 * @param token the owner token
	 * @param ttl the time-to-live
	 * @return the reply to come, or empty
	 */
	Optional<CompletableFuture<AcquireReply>> acquireOnRelease(String key, String token, Duration ttl) {
		if (this.replicaAcks.required()) {
			return Optional.empty();
		}
		ScriptCall<Long> call = this.calls.acquire(this.keys.lockKey(key), token, ttl, "1");
		return this.executor
			.evalOnRelease(new RedisOperation("acquire", key), this.notifications.channelSubscriberIfCreated(), call)
			.map((reply) -> reply.thenApply(RedisLockScripts::acquireReply));
	}

	Mono<Boolean> releaseReactive(String key, String token) {
		return this.executor.evalReactive(new RedisOperation("release", key), () -> this.calls.release(key, token))
			.map(ExclusiveLocks::isOne)
			.defaultIfEmpty(false);
	}

	Mono<Boolean> extendReactive(String key, String token, Duration ttl) {
		if (this.replicaAcks.required()) {
			return RedisCommandExecutor.offloaded(() -> extend(key, token, ttl));
		}
		return this.executor.evalReactive(new RedisOperation("extend", key), () -> this.calls.extend(key, token, ttl))
			.map(ExclusiveLocks::isOne)
			.defaultIfEmpty(false);
	}

	static boolean isOne(@Nullable Long answer) {
		return answer != null && answer == 1L;
	}

}
