package dev.lockstarter.core;

import reactor.core.publisher.Mono;

import dev.lockstarter.store.LockStoreException;

/**
 * The failures of a reactive store call as the {@link LockStoreException}s that the
 * reactive template signals, whatever the store's client signalled.
 */
final class ReactiveStoreCalls {

	private ReactiveStoreCalls() {
	}

	/**
	 * Signal any failure of a store call, other than a {@link LockStoreException}, as one
	 * that names the key and the operation.
	 * @param <T> the element type
	 * @param call the store call
	 * @param key the key
	 * @param operation what the call does, as in "failed to {@code operation} lock"
	 * @return the call, its failures mapped
	 */
	static <T> Mono<T> failing(Mono<T> call, String key, String operation) {
		return call.onErrorMap((ex) -> !(ex instanceof LockStoreException),
				(ex) -> new LockStoreException(key, "Lock store failed to " + operation + " lock '" + key + "'", ex));
	}

}
