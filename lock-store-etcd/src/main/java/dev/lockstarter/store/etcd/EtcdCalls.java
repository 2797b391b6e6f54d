package dev.lockstarter.store.etcd;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.lockstarter.store.LockStoreException;
import org.springframework.util.Assert;

/**
 * The bound on every call of the etcd store: an operation, which may take two or three
 * requests, waits for their answers until one deadline, {@code timeout} after it began; a
 * request still unanswered then is cancelled and the operation fails with
 * {@link LockStoreException}. A failed request fails the operation the same way.
 */
final class EtcdCalls {

	private final Duration timeout;

	private final long timeoutNanos;

	EtcdCalls(Duration timeout) {
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(!timeout.isZero() && !timeout.isNegative(), () -> "'timeout' must be positive, was " + timeout);
		this.timeout = timeout;
		this.timeoutNanos = timeout.toNanos();
	}

	Duration timeout() {
		return this.timeout;
	}

	/**
	 * Return the deadline of an operation that begins now, on the
	 * {@link System#nanoTime()} scale.
	 */
	long deadline() {
		return System.nanoTime() + this.timeoutNanos;
	}

	/**
	 * Wait for a request's answer until the deadline.
	 * @throws LockStoreException if the request failed, or did not answer in time (it is
	 * then cancelled), or the thread was interrupted
	 */
	<T> T await(CompletableFuture<T> request, long deadline, String operation, String key) {
		try {
			return request.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			request.cancel(true);
			throw new LockStoreException(key, "etcd lock store failed to " + operation + describe(key)
					+ ": no answer within " + this.timeout.toMillis() + " ms", ex);
		}
		catch (ExecutionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			throw new LockStoreException(key,
					"etcd lock store failed to " + operation + describe(key) + ": " + cause.getMessage(), cause);
		}
		catch (InterruptedException ex) {
			request.cancel(true);
			Thread.currentThread().interrupt();
			throw new LockStoreException(key,
					"etcd lock store was interrupted while it waited to " + operation + describe(key), ex);
		}
	}

	private static String describe(String key) {
		return key.isEmpty() ? "" : " lock '" + key + "'";
	}

}
