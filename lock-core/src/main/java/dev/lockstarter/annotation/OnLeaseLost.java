package dev.lockstarter.annotation;

/**
 * What happens to a method whose lease is found lost while it runs: a renewal found its
 * lock expired or held by another owner, no renewal was confirmed by the lease's local
 * deadline (renewed or not), or the lease reached its maximum hold time and is no longer
 * renewed.
 *
 * @since 0.1.0
 */
public enum OnLeaseLost {

	/**
	 * The configured default: {@code lock.on-lease-lost}, {@link #REPORT} unless set.
	 */
	DEFAULT,

	/**
	 * The loss is reported (a {@link dev.lockstarter.core.LockLostEvent}, a WARN, the
	 * lease's {@code isHeld()} answers {@code false}) and the method runs on, no longer
	 * exclusive.
	 */
	REPORT,

	/**
	 * The method is stopped: its thread is interrupted, or its reactive subscription (a
	 * Kotlin coroutine included) is cancelled, and the caller gets a
	 * {@link dev.lockstarter.core.LeaseLostException} instead of the method's result.
	 * Work blocked in a call that ignores interruption goes on until that call returns:
	 * guard the writes with the lease's fencing token as well.
	 */
	CANCEL

}
