package dev.lockstarter.core;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;

import dev.lockstarter.store.LockStoreException;

/**
 * A store call cut short by an interrupt: whether it acquired is unknown, so the
 * acquisition releases the keys it may hold by token at once, with the interrupt flag
 * cleared so that the release itself is not cut short, and then restores the flag. This
 * type tells such a failure from others, and makes the exception its caller gets.
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
	 * The exception that tells the caller of an acquisition that its store call was
	 * interrupted.
	 * @param description the key, or the keys, of the acquisition
	 * @param failure the store failure
	 * @return the exception
	 */
	static LockWaitInterruptedException interrupted(String description, LockStoreException failure) {
		InterruptedException interruption = new InterruptedException("Interrupted during a lock store call");
		interruption.initCause(failure);
		return new LockWaitInterruptedException(description, interruption);
	}

}
