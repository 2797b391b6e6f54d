package dev.lockstarter.idempotency;

/**
 * Told how each request to an {@link IdempotentRequest} handler that carried an
 * {@code Idempotency-Key} (or had to) ended, for meters. Runs on the request thread: it
 * must be quick and must not throw.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface IdempotentRequestListener {

	/**
	 * A request was handled.
	 * @param handler the handler's name, {@code SimpleClassName.method}
	 * @param outcome how it ended
	 */
	void requestHandled(String handler, Outcome outcome);

	/**
	 * How an idempotent request ended.
	 */
	enum Outcome {

		/** The key was new: the handler ran, and its response is kept for replays. */
		EXECUTED("executed"),

		/** The key was known: the kept response was replayed, the handler did not run. */
		REPLAYED("replayed"),

		/** A request with the same key was still running: 409. */
		IN_FLIGHT("in-flight"),

		/** The key was used before with a different request: 422. */
		KEY_REUSED("key-reused"),

		/** The key was missing, malformed or the request too large: 400 or 413. */
		INVALID("invalid"),

		/** The lock store failed to answer: 503. */
		STORE_ERROR("store-error"),

		/**
		 * The lock store confirmed the key's lock only after its time-to-live had run
		 * out: 503.
		 */
		TTL_TOO_SHORT("ttl-too-short");

		private final String tagValue;

		Outcome(String tagValue) {
			this.tagValue = tagValue;
		}

		/**
		 * Return the outcome as a tag value of meters.
		 * @return the lower-case value, such as {@code "key-reused"}
		 */
		public String tagValue() {
			return this.tagValue;
		}

	}

}
