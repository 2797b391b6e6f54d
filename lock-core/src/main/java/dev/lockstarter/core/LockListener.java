package dev.lockstarter.core;

/**
 * Callbacks on what {@link LockTemplate} and the
 * {@link dev.lockstarter.annotation.ExclusiveRequest} interceptor do, for meters and
 * other bookkeeping. Every method has an empty default. Listeners run on the thread that
 * did the work (a caller's, or the renewal thread), so they must be quick and must not
 * throw: an exception is logged and ignored.
 *
 * @since 0.1.0
 */
public interface LockListener {

	/**
	 * An acquisition ended, in any outcome, after waiting if it waited.
	 * @param acquisition what happened
	 */
	default void acquisitionFinished(FinishedAttempt acquisition) {
	}

	/**
	 * A lock was acquired; {@link #released} or {@link #lost} follows, exactly once.
	 * @param lock the lock
	 */
	default void acquired(HeldLock lock) {
	}

	/**
	 * A lock was released by its holder.
	 * @param lock the lock, its {@link HeldLock#age()} the time it was held
	 * @param owned {@code false} if the store found the lock expired or taken over, so
	 * the work was not exclusive for its whole run, or if the release failed, so the lock
	 * expires with its time-to-live
	 */
	default void released(HeldLock lock, boolean owned) {
	}

	/**
	 * A renewal extended a held lock.
	 * @param lock the lock
	 */
	default void renewed(HeldLock lock) {
	}

	/**
	 * A held lock was lost before its release: a renewal found it gone, or no renewal was
	 * confirmed by its local deadline.
	 * @param lock the lock
	 * @param reason why, for people
	 */
	default void lost(HeldLock lock, String reason) {
	}

	/**
	 * A caller of a single-flight method received the outcome of the run it waited for,
	 * without running the method.
	 * @param name the lock's name
	 */
	default void resultShared(String name) {
	}

}
