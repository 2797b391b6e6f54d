package dev.lockstarter.idempotency;

import java.time.Duration;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.ReactiveLockOperations;
import dev.lockstarter.core.ReactiveLockResults;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;

/**
 * The lock store as {@link IdempotentRequestWebFilter} uses it, without blocking: takes
 * the lock of a key without waiting, finds the response kept for it, keeps a response
 * with the lock's result, and releases the lock. The WebFlux counterpart of
 * {@link LockStoreResponseKeeping}, with the same rules.
 */
final class ReactiveIdempotencyStore {

	private static final Log logger = LogFactory.getLog(IdempotentRequestWebFilter.class);

	private final ReactiveLockOperations locks;

	private final IdempotencyPolicy policy;

	ReactiveIdempotencyStore(ReactiveLockOperations locks, IdempotencyPolicy policy) {
		this.locks = locks;
		this.policy = policy;
	}

	private ReactiveLockResults results() {
		return this.locks.results()
			.orElseThrow(() -> new IllegalStateException("@IdempotentRequest needs a lock store that keeps results; "
					+ "the lock operations " + this.locks.getClass().getName() + " keep none"));
	}

	/**
	 * Take the lock of a key without waiting.
	 * @return the lease, or an {@link IdempotentRequestInProgressException} if another
	 * request holds the lock
	 */
	Mono<Lease> acquire(String lockKey, LockOptions options) {
		return this.locks.tryAcquire(lockKey, options)
			.flatMap((attempt) -> attempt.isAcquired() ? Mono.just(attempt.lease())
					: Mono.error(new IdempotentRequestInProgressException(attempt.retryAfter())));
	}

	/**
	 * Find the response kept for a key.
	 * @return the kept response, serialized, or empty if none is kept
	 */
	Mono<Optional<byte[]>> findResponse(String lockKey) {
		return results().findResult(lockKey).map(Optional::of).defaultIfEmpty(Optional.empty());
	}

	/**
	 * Keep a captured response with the lock's result, unless its status is not kept or
	 * its body outgrew the bound and was streamed. A response not kept is logged, never
	 * an error.
	 */
	Mono<Void> keep(Lease lease, CapturingResponse response, byte[] fingerprint, Duration retention) {
		HttpStatusCode statusCode = response.getStatusCode();
		int status = (statusCode != null) ? statusCode.value() : 200;
		if (response.isStreamed() || !this.policy.isKept(status)) {
			return Mono.empty();
		}
		HttpHeaders headers = response.getHeaders();
		StoredResponse stored = this.policy.capture(fingerprint, status, headers.getFirst(HttpHeaders.CONTENT_TYPE),
				headers::get, response.body());
		return results().putResult(lease, stored.toBytes(), retention).doOnNext((kept) -> {
			if (!kept) {
				logger.warn(IdempotencyPolicy.LOCK_EXPIRED);
			}
		}).onErrorResume((ex) -> {
			logger.warn(IdempotencyPolicy.NOT_KEPT, ex);
			return Mono.empty();
		}).then();
	}

	/**
	 * Release a lock; a failure is logged, and the lock expires with its time-to-live.
	 */
	Mono<Void> release(Lease lease) {
		return this.locks.release(lease).onErrorResume((ex) -> {
			logger.warn("Could not release the lock of an idempotent request; it expires with its time-to-live", ex);
			return Mono.empty();
		}).then();
	}

}
