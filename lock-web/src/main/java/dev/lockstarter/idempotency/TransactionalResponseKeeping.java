package dev.lockstarter.idempotency;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;
import dev.lockstarter.idempotency.IdempotentRequestTransactions.Transaction;
import org.springframework.http.HttpHeaders;

/**
 * Keeps a response in the transaction that also holds the handler's writes, right before
 * its commit, so that a crash between the two leaves both or neither; a response that
 * cannot be kept with its changes is replaced by a {@code 503} problem response. The
 * rules are those of
 * {@link IdempotentRequestInterceptor#setTransactions(IdempotentRequestTransactions)}.
 * Loaded only when that mode is on, so that {@code spring-tx} is needed only then.
 */
final class TransactionalResponseKeeping implements ResponseKeeping {

	/**
	 * The problem (RFC 9457) sent when a transactional request's outcome could not be
	 * kept.
	 */
	private static final String NOT_KEPT_PROBLEM = """
			{"type":"about:blank","title":"Service Unavailable","status":503,\
			"detail":"The outcome of the request could not be stored with its changes, which were rolled back. \
			Retry with the same Idempotency-Key."}""";

	private static final Log logger = LogFactory.getLog(IdempotentRequestInterceptor.class);

	private final IdempotentRequestTransactions transactions;

	private final IdempotencyPolicy policy;

	TransactionalResponseKeeping(IdempotentRequestTransactions transactions, IdempotencyPolicy policy) {
		this.transactions = transactions;
		this.policy = policy;
	}

	@Override
	public InFlight begin(Lease lease, byte[] fingerprint, Duration retention) {
		Transaction transaction = this.transactions.begin();
		return (response, failure) -> {
			// The lock is released after the commit: its release would wait for the row
			// lock that keeping the response takes.
			try (lease) {
				complete(transaction, lease, fingerprint, retention, response, failure);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not release the lock of an idempotent request", ex);
			}
		};
	}

	/**
	 * Keep the response in the request's transaction and commit, or roll back.
	 */
	private void complete(Transaction transaction, Lease lease, byte[] fingerprint, Duration retention,
			@Nullable BufferedResponse response, @Nullable Exception failure) {
		if (response != null && response.isOverflowed()) {
			// Too large to keep: the body past the bound was dropped, not sent, so the
			// response is replaced
			rollback(transaction);
			notKept(response);
			return;
		}
		if (failure != null || response == null || !this.policy.isKept(response.getStatus())) {
			rollback(transaction);
			return;
		}
		if (transaction.isRollbackOnly()) {
			// A participant failed, and the handler answered anyway
			rollback(transaction);
			if (response.getStatus() >= 400) {
				// A client error: nothing was done, and that outcome is kept outside the
				// transaction, which is over
				keepAfterRollback(lease, fingerprint, retention, response);
			}
			else {
				logger.warn("Idempotent request answered " + response.getStatus() + " but its transaction was "
						+ "marked rollback-only; it is rolled back and a 503 response sent instead");
				notKept(response);
			}
			return;
		}
		try {
			StoredResponse stored = LockStoreResponseKeeping.capture(this.policy, fingerprint, response);
			if (lease.putResult(stored.toBytes(), retention)) {
				transaction.commit();
				return;
			}
			logger.warn("Response of an idempotent request not kept: its lock expired before the request "
					+ "completed; its transaction is rolled back and a 503 response sent instead");
		}
		catch (RuntimeException commitOrStoreFailure) {
			logger.warn("Response of an idempotent request not kept, or its transaction not committed; the "
					+ "transaction is rolled back and a 503 response sent instead", commitOrStoreFailure);
		}
		rollback(transaction);
		notKept(response);
	}

	private static void rollback(Transaction transaction) {
		RuntimeException failure = transaction.rollback();
		if (failure != null) {
			logger.warn("Could not roll back the transaction of an idempotent request", failure);
		}
	}

	private void keepAfterRollback(Lease lease, byte[] fingerprint, Duration retention, BufferedResponse response) {
		try {
			StoredResponse stored = LockStoreResponseKeeping.capture(this.policy, fingerprint, response);
			if (!lease.putResult(stored.toBytes(), retention)) {
				logger.warn(IdempotencyPolicy.LOCK_EXPIRED);
			}
		}
		catch (RuntimeException ex) {
			logger.warn(IdempotencyPolicy.NOT_KEPT, ex);
		}
	}

	/**
	 * Replace the buffered response, not sent yet, by a 503 problem response.
	 */
	private static void notKept(BufferedResponse response) {
		if (response.isCommitted()) {
			logger.warn("Could not replace the response of an idempotent request whose outcome was not kept: "
					+ "the response is already committed");
			return;
		}
		response.reset();
		response.setStatus(503);
		response.setHeader(HttpHeaders.RETRY_AFTER, "1");
		response.setContentType("application/problem+json");
		byte[] body = NOT_KEPT_PROBLEM.getBytes(StandardCharsets.UTF_8);
		response.setContentLength(body.length);
		try {
			response.getOutputStream().write(body);
		}
		catch (IOException ex) {
			logger.warn("Could not write the 503 response of an idempotent request", ex);
		}
	}

}
