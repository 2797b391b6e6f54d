package dev.lockstarter.annotation;

/**
 * What an {@link ExclusiveRequest} call does when another call holds its key.
 *
 * @since 0.1.0
 */
public enum OnConflict {

	/**
	 * Wait for the lock as long as {@link ExclusiveRequest#waitTime()} says (not at all
	 * by default), then run the method; if the lock is still held, reject the call with a
	 * {@link dev.lockstarter.core.LockConflictException}.
	 */
	REJECT,

	/**
	 * Single-flight: wait for the holder to finish and return its result (or throw its
	 * exception) without running the method. The holder keeps its result next to the lock
	 * for {@link ExclusiveRequest#resultTtl()}. When the holder dies without a result,
	 * one waiting caller takes over and runs the method, and the others get that caller's
	 * result.
	 * <p>
	 * Supported for methods that return a value, a {@code CompletionStage}, or a
	 * single-value reactive type such as {@code Mono} (whose callers wait without
	 * blocking a thread). Not for a stream of several values such as {@code Flux}: its
	 * elements, their timing and a failure after some of them cannot be replayed
	 * faithfully to the callers that wait, so such a method fails at startup.
	 */
	SHARE_RESULT

}
