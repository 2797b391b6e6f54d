package dev.lockstarter.store;

import java.time.Duration;

import reactor.core.publisher.Mono;

/**
 * A {@link LockStore} that answers without blocking a thread, for reactive callers. The
 * operations have the semantics of their blocking counterparts on the same keys, so a
 * blocking and a reactive caller of one key exclude each other.
 * <p>
 * Each operation is lazy: nothing is sent before subscription. Failures are signalled as
 * {@link LockStoreException} errors, and each operation ends, with a value or such an
 * error, within the store's own timeout. A cancelled operation may still have been
 * applied by the store: a caller that cancels an acquisition releases by token.
 * <p>
 * A store without this ability is called on
 * {@link reactor.core.scheduler.Schedulers#boundedElastic()} by reactive callers, never
 * on the caller's thread. Requires Reactor on the classpath.
 *
 * @since 0.1.0
 */
public interface ReactiveLockStore extends LockStore {

	/**
	 * Acquire the lock on {@code key} for {@code token} if no one holds it, as
	 * {@link #tryAcquire}.
	 * @param key the full store key
	 * @param token the new owner's token, unique to this acquisition
	 * @param ttl the lock's time-to-live, positive
	 * @return a {@code Mono} of the result, or a {@link LockStoreException} error
	 */
	Mono<AcquireReply> tryAcquireReactive(String key, String token, Duration ttl);

	/**
	 * Delete the lock on {@code key} if it is held by {@code token}, as {@link #release}.
	 * @param key the full store key
	 * @param token the owner token
	 * @return a {@code Mono} of whether the lock was held by {@code token} and is now
	 * deleted, or a {@link LockStoreException} error
	 */
	Mono<Boolean> releaseReactive(String key, String token);

	/**
	 * Reset the time-to-live of the lock on {@code key} if it is held by {@code token},
	 * as {@link #extend}.
	 * @param key the full store key
	 * @param token the owner token
	 * @param ttl the new time-to-live, counted from now, positive
	 * @return a {@code Mono} of whether the lock was held by {@code token} and is
	 * extended, or a {@link LockStoreException} error
	 */
	Mono<Boolean> extendReactive(String key, String token, Duration ttl);

}
