package dev.lockstarter.core;

import java.time.Duration;

import reactor.core.publisher.Mono;

import dev.lockstarter.store.LockStoreException;

/**
 * The results kept next to locks, as {@link LockResults}, without blocking the
 * subscriber's thread. Obtained from {@link ReactiveLockOperations#results()} when the
 * lock store keeps results.
 *
 * @since 0.1.0
 */
public interface ReactiveLockResults {

	/**
	 * Keep a result next to the lock of a lease, as {@link Lease#putResult}, for the
	 * callers that wait for the lock while the lease holds it, who read it with
	 * {@link #findResult} once it is released.
	 * @param lease a lease on one key, obtained from the same operations
	 * @param result the result's bytes
	 * @param ttl how long the result is kept, positive
	 * @return a {@code Mono} of whether the result is stored ({@code false} if the lock
	 * was already released, lost or taken over); an {@link UnsupportedOperationException}
	 * error if the lease holds several keys, a {@link LockStoreException} error if the
	 * store fails
	 */
	Mono<Boolean> putResult(Lease lease, byte[] result, Duration ttl);

	/**
	 * Return the result that a holder of the key kept, as {@link LockResults#findResult}.
	 * @param key the key, not blank
	 * @return a {@code Mono} of the result's bytes, empty if there is none or it expired;
	 * a {@link LockStoreException} error if the store fails
	 */
	Mono<byte[]> findResult(String key);

}
