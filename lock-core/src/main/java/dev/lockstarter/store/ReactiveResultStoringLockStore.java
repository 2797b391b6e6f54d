package dev.lockstarter.store;

import java.time.Duration;

import reactor.core.publisher.Mono;

/**
 * A {@link ReactiveLockStore} that keeps results next to locks
 * ({@link ResultStoringLockStore}) and also reads and writes them without blocking a
 * thread, for reactive single-flight callers. The operations have the semantics of their
 * blocking counterparts on the same keys: a result kept by a reactive holder is found by
 * a blocking caller, and the other way round.
 * <p>
 * Like every reactive operation of a store, each is lazy, signals failures as
 * {@link LockStoreException} errors, and ends within the store's own timeout. A store
 * that keeps results without this ability is called on
 * {@link reactor.core.scheduler.Schedulers#boundedElastic()} by reactive callers.
 *
 * @since 0.1.0
 */
public interface ReactiveResultStoringLockStore extends ReactiveLockStore, ResultStoringLockStore {

	/**
	 * Keep {@code result} for the key of a lock for {@code ttl} if the lock is held by
	 * {@code token}, as {@link #putResult}.
	 * @param key the full store key of the lock
	 * @param token the owner token given to {@link #tryAcquire}
	 * @param result the result's bytes
	 * @param ttl how long the result is kept, positive
	 * @return a {@code Mono} of whether the lock was held by {@code token} and the result
	 * is stored, or a {@link LockStoreException} error
	 */
	Mono<Boolean> putResultReactive(String key, String token, byte[] result, Duration ttl);

	/**
	 * Read the result last kept for the key of a lock, as {@link #getResult}.
	 * @param key the full store key of the lock
	 * @return a {@code Mono} of the result's bytes, empty if there is none, or a
	 * {@link LockStoreException} error
	 */
	Mono<byte[]> getResultReactive(String key);

}
