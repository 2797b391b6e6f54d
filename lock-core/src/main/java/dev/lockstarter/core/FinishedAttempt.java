package dev.lockstarter.core;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * One finished call of {@link LockOperations#tryAcquire}, as told to
 * {@link LockListener#acquisitionFinished}.
 *
 * @param name the lock's low-cardinality name ({@code "unnamed"} when the options set
 * none)
 * @param key the lock's key, which may carry user data
 * @param outcome how the call ended
 * @param duration how long the call took, waiting included
 * @param waited whether the first attempt found the lock held and the call then waited or
 * retried
 * @since 0.1.0
 */
public record FinishedAttempt(String name, String key, Outcome outcome, Duration duration, boolean waited) {

	/**
	 * Create an instance.
	 * @param name the lock's name
	 * @param key the lock's key
	 * @param outcome how the call ended
	 * @param duration how long the call took
	 * @param waited whether the call waited
	 */
	public FinishedAttempt {
		Assert.notNull(name, "'name' must not be null");
		Assert.notNull(key, "'key' must not be null");
		Assert.notNull(outcome, "'outcome' must not be null");
		Assert.notNull(duration, "'duration' must not be null");
	}

	/**
	 * How an acquisition ended.
	 */
	public enum Outcome {

		/** The lock was acquired. */
		ACQUIRED("acquired"),

		/** The lock was held and the caller did not wait for it. */
		CONFLICT("conflict"),

		/** The lock was still held when the caller's wait time (or retries) ran out. */
		WAIT_TIMEOUT("wait-timeout"),

		/** The store failed to answer. */
		STORE_ERROR("store-error"),

		/**
		 * The store granted the lock, but confirmed it after the lock's time-to-live less
		 * the loss margin: the time-to-live was shorter than the store took to answer
		 * ({@link LockTtlTooShortException}).
		 */
		TTL_TOO_SHORT("ttl-too-short"),

		/** The caller's thread was interrupted while it waited. */
		INTERRUPTED("interrupted"),

		/**
		 * The caller stopped waiting, without the lock, because what it waited for was
		 * there: a single-flight follower found the holder's result.
		 * @see LockOperations#tryAcquire(String, LockOptions,
		 * java.util.function.BooleanSupplier)
		 */
		STOPPED("stopped");

		private final String tagValue;

		Outcome(String tagValue) {
			this.tagValue = tagValue;
		}

		/**
		 * Return the outcome as a tag value of meters and observations.
		 * @return the lower-case value, such as {@code "wait-timeout"}
		 */
		public String tagValue() {
			return this.tagValue;
		}

		/**
		 * Return the outcome that an acquisition ended by {@code failure} counts as:
		 * {@link #INTERRUPTED} for a {@link LockWaitInterruptedException},
		 * {@link #TTL_TOO_SHORT} for a {@link LockTtlTooShortException}, and
		 * {@link #STORE_ERROR} for any other.
		 * @param failure what ended the acquisition
		 * @return the outcome
		 */
		public static Outcome ofFailure(Throwable failure) {
			if (failure instanceof LockWaitInterruptedException) {
				return INTERRUPTED;
			}
			return (failure instanceof LockTtlTooShortException) ? TTL_TOO_SHORT : STORE_ERROR;
		}

	}

}
