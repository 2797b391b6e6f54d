package dev.lockstarter.idempotency;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;

/**
 * Where {@link IdempotentRequestInterceptor} keeps the response of a request whose
 * handler ran, chosen once, by configuration: with the lock's result in the lock store
 * ({@link LockStoreResponseKeeping}, the default), or in the transaction that also holds
 * the handler's writes ({@link TransactionalResponseKeeping}).
 */
interface ResponseKeeping {

	/**
	 * Prepare a request whose handler is about to run: its lock is held and no response
	 * is kept for its key. Runs on the request thread.
	 * @param lease the request's lock; released by the returned request when it completes
	 * @param fingerprint the request's fingerprint
	 * @param retention how long the response is kept
	 * @return the request in flight
	 * @throws RuntimeException if the request cannot run; the caller releases the lock
	 */
	InFlight begin(Lease lease, byte[] fingerprint, Duration retention);

	/**
	 * A request whose handler runs.
	 */
	@FunctionalInterface
	interface InFlight {

		/**
		 * Keep the response, or not, and release the lock. Never throws.
		 * @param response the held response, or {@code null} if it was not held; one
		 * whose body {@linkplain BufferedResponse#isOverflowed() outgrew the bound} is
		 * not kept
		 * @param failure the handler's unhandled exception, or {@code null}
		 */
		void complete(@Nullable BufferedResponse response, @Nullable Exception failure);

	}

}
