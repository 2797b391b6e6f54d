package dev.lockstarter.core;

import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.lockstarter.store.LockStoreException;

/**
 * Programmatic access to distributed locks. Implemented by {@link LockTemplate}; the
 * auto-configuration exposes one as a bean.
 * <p>
 * Keys are application-level names such as {@code "user:42"}; the configured key prefix
 * is added before they reach the store. A lock is held until it is released or its
 * time-to-live passes, whichever comes first; with {@linkplain LockOptions#withRenewal
 * renewal} (the default) the time-to-live is extended for as long as the lease is held.
 * <p>
 * Locks taken through this interface are not reentrant: acquiring a key that the same
 * thread already holds conflicts like any other acquisition.
 * <p>
 * <b>Several keys at once.</b> The methods that take a {@code Collection} of keys lock
 * all of them or none, for work that touches several resources, such as a transfer
 * between two accounts:
 *
 * <pre class="code">
 * try (Lease lease = locks.acquire(List.of("account:" + from, "account:" + to), options)) {
 *     // no other holder of either account, whichever order other callers name them in
 * }
 * </pre>
 *
 * Duplicate keys count once. Every caller takes the keys in one global order (sorted by
 * store key), so that callers of overlapping sets, {@code [A, B]} and {@code [B, A]},
 * cannot deadlock and collide on their first common key; a caller that finds any key held
 * holds none of them afterwards, and with a wait time it waits and tries the whole set
 * again. The one {@link Lease} covers every key: it renews all of them, counts as held
 * only while it holds every one, is reported lost key by key, and one release frees them
 * all. Each key has its own {@linkplain Lease#fencingToken(String) fencing token}. A
 * conflict names the first key found held ({@link LockAttempt#heldKey()}).
 *
 * @since 0.1.0
 */
public interface LockOperations {

	/**
	 * Try to acquire the lock on a key, waiting for it as the options say.
	 * @param key the key, not blank
	 * @param options the time-to-live, wait and hold options
	 * @return the attempt: a lease, or the holder's remaining time-to-live
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 * @throws LockWaitInterruptedException if the thread is interrupted while waiting
	 */
	LockAttempt tryAcquire(String key, LockOptions options);

	/**
	 * Try once to acquire the lock on a key, without waiting.
	 * @param key the key, not blank
	 * @param ttl how long the lock is held at most if it is not released, positive
	 * @return the attempt: a lease, or the holder's remaining time-to-live
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	default LockAttempt tryAcquire(String key, Duration ttl) {
		return tryAcquire(key, LockOptions.ttl(ttl));
	}

	/**
	 * Acquire the lock on a key, waiting for it as the options say.
	 * @param key the key, not blank
	 * @param options the time-to-live, wait and hold options
	 * @return the lease, to be closed when the guarded work is done
	 * @throws LockConflictException if the lock is still held when the wait ends
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 * @throws LockWaitInterruptedException if the thread is interrupted while waiting
	 */
	default Lease acquire(String key, LockOptions options) {
		return tryAcquire(key, options).orElseThrow();
	}

	/**
	 * Acquire the lock on a key, or fail at once if it is held.
	 * @param key the key, not blank
	 * @param ttl how long the lock is held at most if it is not released, positive
	 * @return the lease, to be closed when the guarded work is done
	 * @throws LockConflictException if the lock is held by another owner
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	default Lease acquire(String key, Duration ttl) {
		return acquire(key, LockOptions.ttl(ttl));
	}

	/**
	 * Run a callback while holding the lock on a key, and release it afterwards, whether
	 * the callback returns or throws.
	 * @param <T> the result type
	 * @param key the key, not blank
	 * @param options the time-to-live, wait and hold options
	 * @param callback the guarded work, given the lease
	 * @return the callback's result
	 * @throws LockConflictException if the lock is still held when the wait ends; the
	 * callback does not run
	 * @throws LockStoreException if the store cannot be reached; the callback does not
	 * run
	 */
	default <T> T execute(String key, LockOptions options, LockCallback<T> callback) {
		try (Lease lease = acquire(key, options)) {
			return callback.doWithLock(lease);
		}
	}

	/**
	 * Run a callback while holding the lock on a key, without waiting for it, and release
	 * it afterwards, whether the callback returns or throws.
	 * @param <T> the result type
	 * @param key the key, not blank
	 * @param ttl how long the lock is held at most if it is not released, positive
	 * @param callback the guarded work
	 * @return the callback's result
	 * @throws LockConflictException if the lock is held by another owner; the callback
	 * does not run
	 * @throws LockStoreException if the store cannot be reached; the callback does not
	 * run
	 */
	default <T> T execute(String key, Duration ttl, Supplier<T> callback) {
		return execute(key, LockOptions.ttl(ttl), (lease) -> callback.get());
	}

	/**
	 * Return a {@link java.util.concurrent.locks.Lock} on a key, for code that takes one:
	 * reentrant and owned by a thread, as a {@code ReentrantLock} is, and exclusive with
	 * every other holder of the key on every instance. Each call returns a new lock
	 * object; share one among the threads of this process, so that they queue on it
	 * locally.
	 * @param key the key, not blank
	 * @param options the time-to-live, renewal, hold times and name of each acquisition;
	 * their wait time is not used, each method of the lock says how long it waits
	 * @return the lock, not held yet
	 * @since 0.1.0
	 * @see LeaseLock
	 */
	default LeaseLock lock(String key, LockOptions options) {
		return new LeaseLock(this, key, options);
	}

	/**
	 * Try to acquire the locks on several keys, all of them or none, waiting for them as
	 * the options say. A wait ends when every key could be taken at once, or when the
	 * wait time is over.
	 * @param keys the keys, at least one, none blank; duplicates count once
	 * @param options the time-to-live, wait and hold options, shared by every key
	 * @return the attempt: one lease on every key, or the first key found held and its
	 * holder's remaining time-to-live
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time; no key is held then
	 * @throws LockWaitInterruptedException if the thread is interrupted while waiting
	 * @since 0.1.0
	 */
	LockAttempt tryAcquire(Collection<String> keys, LockOptions options);

	/**
	 * Try once to acquire the locks on several keys, all of them or none, without
	 * waiting.
	 * @param keys the keys, at least one, none blank; duplicates count once
	 * @param ttl how long the locks are held at most if they are not released, positive
	 * @return the attempt: one lease on every key, or the first key found held
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 * @since 0.1.0
	 */
	default LockAttempt tryAcquire(Collection<String> keys, Duration ttl) {
		return tryAcquire(keys, LockOptions.ttl(ttl));
	}

	/**
	 * Acquire the locks on several keys, all of them or none, waiting for them as the
	 * options say.
	 * @param keys the keys, at least one, none blank; duplicates count once
	 * @param options the time-to-live, wait and hold options, shared by every key
	 * @return one lease on every key, to be closed when the guarded work is done
	 * @throws LockConflictException if a key is still held when the wait ends, naming
	 * that key
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 * @throws LockWaitInterruptedException if the thread is interrupted while waiting
	 * @since 0.1.0
	 */
	default Lease acquire(Collection<String> keys, LockOptions options) {
		return tryAcquire(keys, options).orElseThrow();
	}

	/**
	 * Acquire the locks on several keys, all of them or none, or fail at once if any is
	 * held.
	 * @param keys the keys, at least one, none blank; duplicates count once
	 * @param ttl how long the locks are held at most if they are not released, positive
	 * @return one lease on every key, to be closed when the guarded work is done
	 * @throws LockConflictException if a key is held by another owner
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 * @since 0.1.0
	 */
	default Lease acquire(Collection<String> keys, Duration ttl) {
		return acquire(keys, LockOptions.ttl(ttl));
	}

	/**
	 * Run a callback while holding the locks on several keys, and release them all
	 * afterwards, whether the callback returns or throws.
	 * @param <T> the result type
	 * @param keys the keys, at least one, none blank; duplicates count once
	 * @param options the time-to-live, wait and hold options, shared by every key
	 * @param callback the guarded work, given the lease
	 * @return the callback's result
	 * @throws LockConflictException if a key is still held when the wait ends; the
	 * callback does not run
	 * @throws LockStoreException if the store cannot be reached; the callback does not
	 * run
	 * @since 0.1.0
	 */
	default <T> T execute(Collection<String> keys, LockOptions options, LockCallback<T> callback) {
		try (Lease lease = acquire(keys, options)) {
			return callback.doWithLock(lease);
		}
	}

	/**
	 * Run a callback while holding the locks on several keys, without waiting for them,
	 * and release them all afterwards, whether the callback returns or throws.
	 * @param <T> the result type
	 * @param keys the keys, at least one, none blank; duplicates count once
	 * @param ttl how long the locks are held at most if they are not released, positive
	 * @param callback the guarded work
	 * @return the callback's result
	 * @throws LockConflictException if a key is held by another owner; the callback does
	 * not run
	 * @throws LockStoreException if the store cannot be reached; the callback does not
	 * run
	 * @since 0.1.0
	 */
	default <T> T execute(Collection<String> keys, Duration ttl, Supplier<T> callback) {
		return execute(keys, LockOptions.ttl(ttl), (lease) -> callback.get());
	}

	/**
	 * Try to acquire the lock on a key, waiting as the options say, but stop waiting
	 * without the lock when {@code stopWaiting} answers {@code true}. It is asked each
	 * time a waiting caller wakes, after a release of the key is announced or a poll is
	 * due, before the caller tries again; never before the first try. A single-flight
	 * follower uses it to read the holder's result as soon as the holder releases,
	 * together with every other follower, instead of taking the lock in turn to read it.
	 * <p>
	 * The default ignores {@code stopWaiting}, which is always correct: a caller that
	 * gets the lock can check the same condition while holding it.
	 * @param key the key, not blank
	 * @param options the options
	 * @param stopWaiting asked after each wake; an exception it throws ends the attempt
	 * @return the attempt: acquired, or not acquired when the wait ran out or was stopped
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	default LockAttempt tryAcquire(String key, LockOptions options, BooleanSupplier stopWaiting) {
		return tryAcquire(key, options);
	}

	/**
	 * Return whether the lock store keeps locks of this kind, for
	 * {@link LockOptions#withKind}. Every store keeps mutexes.
	 * @param kind the kind
	 * @return {@code true} if locks of that kind can be taken
	 */
	default boolean supports(LockKind kind) {
		return kind.isMutex();
	}

	/**
	 * Return the results kept next to the locks, for {@link Lease#putResult}'s readers,
	 * if the lock store keeps results. Ask once, when the caller is set up: the answer
	 * does not change.
	 * @return the results, or empty if the store keeps none
	 * @since 0.1.0
	 */
	default Optional<LockResults> results() {
		return Optional.empty();
	}

}
