package dev.lockstarter.core;

import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.function.Function;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.store.LockStoreException;

/**
 * Reactive access to distributed locks: the counterpart of {@link LockOperations} for
 * code that must not block a thread. Implemented by {@link ReactiveLockTemplate}, on the
 * same store, key prefix, renewal and listeners as its {@link LockTemplate}, so a
 * blocking and a reactive caller of one key exclude each other.
 * <p>
 * Every method is lazy: nothing happens before subscription. Store failures arrive as
 * {@link LockStoreException} errors, a lock still held when the wait ends as a
 * {@link LockConflictException} error from the {@code acquire} and {@code execute}
 * methods. Waiting parks no thread: a waiter tries again when the store announces a
 * release, and polls with backoff as a safety net, on timers.
 * <p>
 * The simplest use is {@link #execute}, which releases the lock when the guarded
 * publisher completes, fails or is cancelled:
 *
 * <pre class="code">
 * Mono&lt;Receipt&gt; receipt = locks
 *     .execute("user:" + id, LockOptions.ttl(Duration.ofSeconds(10)), (lease) -&gt; pay(id))
 *     .single();
 * </pre>
 *
 * A lease obtained from {@link #acquire} must be given back with {@link #release}, not
 * closed: {@link Lease#close()} blocks.
 *
 * @since 0.1.0
 */
public interface ReactiveLockOperations {

	/**
	 * Try to acquire the lock on a key, waiting for it as the options say.
	 * @param key the key, not blank
	 * @param options the time-to-live, wait and hold options
	 * @return a {@code Mono} of the attempt: a lease, or the holder's remaining
	 * time-to-live; a {@link LockStoreException} error if the store fails
	 */
	Mono<LockAttempt> tryAcquire(String key, LockOptions options);

	/**
	 * Try to acquire the locks on several keys, all of them or none, waiting for them as
	 * the options say.
	 * @param keys the keys, at least one, none blank; duplicates count once
	 * @param options the time-to-live, wait and hold options, shared by every key
	 * @return a {@code Mono} of the attempt; a {@link LockStoreException} error if the
	 * store fails, in which case no key is held
	 */
	Mono<LockAttempt> tryAcquire(Collection<String> keys, LockOptions options);

	/**
	 * Try to acquire the lock on a key, waiting as the options say, but stop waiting
	 * without the lock when {@code stopWaiting} emits {@code true}, as
	 * {@link LockOperations#tryAcquire(String, LockOptions, java.util.function.BooleanSupplier)}
	 * does: it is subscribed to each time the waiter wakes (a release announced, a poll
	 * due), before the next try. The default ignores it.
	 * @param key the key, not blank
	 * @param options the time-to-live, wait and hold options
	 * @param stopWaiting subscribed to after each wake; an error ends the attempt with it
	 * @return a {@code Mono} of the attempt: acquired, or not acquired when the wait ran
	 * out or was stopped; a {@link LockStoreException} error if the store fails
	 */
	default Mono<LockAttempt> tryAcquire(String key, LockOptions options, Mono<Boolean> stopWaiting) {
		return tryAcquire(key, options);
	}

	/**
	 * Acquire the lock on a key, waiting for it as the options say.
	 * @param key the key, not blank
	 * @param options the time-to-live, wait and hold options
	 * @return a {@code Mono} of the lease, a {@link LockConflictException} error if the
	 * lock is still held when the wait ends, or a {@link LockStoreException} error
	 */
	default Mono<Lease> acquire(String key, LockOptions options) {
		return tryAcquire(key, options).map(LockAttempt::orElseThrow);
	}

	/**
	 * Acquire the locks on several keys, all of them or none, waiting for them as the
	 * options say.
	 * @param keys the keys, at least one, none blank; duplicates count once
	 * @param options the time-to-live, wait and hold options, shared by every key
	 * @return a {@code Mono} of one lease on every key, a {@link LockConflictException}
	 * error naming a key still held when the wait ends, or a {@link LockStoreException}
	 * error
	 */
	default Mono<Lease> acquire(Collection<String> keys, LockOptions options) {
		return tryAcquire(keys, options).map(LockAttempt::orElseThrow);
	}

	/**
	 * Release a lease obtained from this object, by compare-and-delete on its owner
	 * token, as {@link Lease#release()} does, without blocking the subscriber's thread.
	 * @param lease the lease
	 * @return a {@code Mono} of whether the lock was still owned by the lease; a
	 * {@link LockStoreException} error if the store fails, in which case the lock expires
	 * with its time-to-live
	 */
	Mono<Boolean> release(Lease lease);

	/**
	 * Return the results kept next to the locks, as {@link LockOperations#results()},
	 * read and written without blocking the subscriber's thread, if the lock store keeps
	 * results.
	 * @return the results, or empty if the store keeps none
	 * @since 0.1.0
	 */
	default Optional<ReactiveLockResults> results() {
		return Optional.empty();
	}

	/**
	 * Run a publisher while holding the lock on a key: the lock is acquired on
	 * subscription, the publisher is created by the callback and subscribed once it is
	 * held, and the lock is released when the publisher completes, fails, or is
	 * cancelled. A release that fails is logged and the lock expires with its
	 * time-to-live; it never replaces the publisher's outcome.
	 * @param <T> the element type
	 * @param key the key, not blank
	 * @param options the time-to-live, wait and hold options
	 * @param callback the guarded work, given the lease
	 * @return the guarded publisher's elements; a {@link LockConflictException} or
	 * {@link LockStoreException} error, without calling the callback, if the lock cannot
	 * be acquired
	 */
	<T> Flux<T> execute(String key, LockOptions options, Function<Lease, ? extends Publisher<T>> callback);

	/**
	 * Run a publisher while holding the locks on several keys, all of them or none, as
	 * {@link #execute(String, LockOptions, Function)}.
	 * @param <T> the element type
	 * @param keys the keys, at least one, none blank; duplicates count once
	 * @param options the time-to-live, wait and hold options, shared by every key
	 * @param callback the guarded work, given the lease
	 * @return the guarded publisher's elements; a {@link LockConflictException} or
	 * {@link LockStoreException} error, without calling the callback, if the locks cannot
	 * be acquired
	 */
	<T> Flux<T> execute(Collection<String> keys, LockOptions options, Function<Lease, ? extends Publisher<T>> callback);

	/**
	 * Run a publisher while holding the lock on a key, without waiting for it, as
	 * {@link #execute(String, LockOptions, Function)}.
	 * @param <T> the element type
	 * @param key the key, not blank
	 * @param ttl how long the lock is held at most if it is not released, positive
	 * @param callback the guarded work, given the lease
	 * @return the guarded publisher's elements
	 */
	default <T> Flux<T> execute(String key, Duration ttl, Function<Lease, ? extends Publisher<T>> callback) {
		return execute(key, LockOptions.ttl(ttl), callback);
	}

}
