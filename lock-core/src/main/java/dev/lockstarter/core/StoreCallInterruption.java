package dev.lockstarter.core;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;

/**
 * A store call cut short by an interrupt: whether it acquired is unknown, so the keys it
 * may hold are released by token at once, with the interrupt flag cleared so that the
 * release itself is not cut short, and the flag is then restored.
 */
final class StoreCallInterruption {

	private StoreCallInterruption() {
	}

	/**
	 * Whether a store failure was caused by an interrupt. Store clients wrap it in their
	 * own types (Lettuce's {@code RedisCommandInterruptedException}, the AWS SDK's
	 * {@code AbortedException}), matched by name so that this class needs none of them. A
	 * {@link SocketTimeoutException}, although an {@link InterruptedIOException}, is a
	 * timeout (a JDBC driver's network timeout), not an interrupt.
	 * @param failure the failure
	 * @return whether an interrupt caused it
	 */
	static boolean isInterruption(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InterruptedException
					|| (cause instanceof InterruptedIOException && !(cause instanceof SocketTimeoutException))
					|| cause.getClass().getSimpleName().contains("Interrupted")
					|| cause.getClass().getSimpleName().equals("AbortedException")) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Release the first {@code count} keys of an attempt by its token; a release that
	 * fails is retried in the background.
	 * @param attempt the attempt whose store call was interrupted
	 * @param failure the store failure
	 * @param count the number of keys the call may have taken
	 * @return the exception that tells the caller of the interrupt
	 */
	static LockWaitInterruptedException releaseAfterInterrupt(AcquisitionAttempt attempt, LockStoreException failure,
			int count, LockStore store) {
		try {
			for (int i = 0; i < count; i++) {
				try {
					store.release(attempt.storeKeys().get(i), attempt.token());
				}
				catch (RuntimeException ex) {
					failure.addSuppressed(ex);
					attempt.orphaned(i);
				}
			}
		}
		finally {
			Thread.currentThread().interrupt();
		}
		InterruptedException interruption = new InterruptedException("Interrupted during a lock store call");
		interruption.initCause(failure);
		return new LockWaitInterruptedException(attempt.description(), interruption);
	}

}
