package dev.lockstarter.annotation;

/**
 * What the callers that wait for a holder's result get when the holder throws, with
 * {@link OnConflict#SHARE_RESULT}.
 *
 * @since 0.1.0
 */
public enum OnHolderFailure {

	/**
	 * The waiting callers fail like the holder: with an exception of the same type and
	 * message when it can be created again from its type and message, and otherwise with
	 * a {@link dev.lockstarter.core.SharedFailureException} that names the type and
	 * carries the holder's HTTP status. In a GraalVM native image, a type is created
	 * again only when it is registered for reflection: the exceptions that the method
	 * declares in its {@code throws} clause are, others only if the application registers
	 * them.
	 */
	SHARE_FAILURE,

	/**
	 * The holder's failure is not shared: one waiting caller takes over and runs the
	 * method, and the others get its result.
	 */
	TAKE_OVER

}
