package dev.lockstarter.idempotency;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;

/**
 * Keeps a response with the lock's result in the lock store, after the handler's own
 * transactions, and releases the lock in the same store call where the store can. A
 * response that is not to be kept, or a handler that ended with an exception, keeps
 * nothing.
 */
final class LockStoreResponseKeeping implements ResponseKeeping {

	private static final Log logger = LogFactory.getLog(IdempotentRequestInterceptor.class);

	private final IdempotencyPolicy policy;

	LockStoreResponseKeeping(IdempotencyPolicy policy) {
		this.policy = policy;
	}

	@Override
	public InFlight begin(Lease lease, byte[] fingerprint, Duration retention) {
		return (response, failure) -> complete(lease, fingerprint, retention, response, failure);
	}

	private void complete(Lease lease, byte[] fingerprint, Duration retention, @Nullable BufferedResponse response,
			@Nullable Exception failure) {
		try (lease) {
			if (failure != null || response == null || response.isOverflowed()
					|| !this.policy.isKept(response.getStatus())) {
				return;
			}
			StoredResponse stored = capture(this.policy, fingerprint, response);
			// One store call keeps the response and releases the lock where the store
			// can;
			// close() then releases only a lock that this call failed to release.
			if (!lease.releaseKeepingResult(stored.toBytes(), retention)) {
				logger.warn(IdempotencyPolicy.LOCK_EXPIRED);
			}
		}
		catch (RuntimeException ex) {
			logger.warn(IdempotencyPolicy.NOT_KEPT, ex);
		}
	}

	/**
	 * Capture a held servlet response to keep it.
	 */
	static StoredResponse capture(IdempotencyPolicy policy, byte[] fingerprint, BufferedResponse response) {
		return policy.capture(fingerprint, response.getStatus(), response.getContentType(), response::getHeaders,
				response.getBody());
	}

}
