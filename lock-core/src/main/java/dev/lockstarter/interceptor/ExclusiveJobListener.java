package dev.lockstarter.interceptor;

/**
 * Told what each tick of an {@link dev.lockstarter.annotation.ExclusiveJob} method did on
 * this instance, for meters and other bookkeeping. Listeners run on the job's thread, so
 * they must be quick and must not throw: an exception is logged and ignored.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface ExclusiveJobListener {

	/**
	 * A tick of a job ended.
	 * @param name the job's lock name
	 * @param outcome what the tick did on this instance
	 */
	void tickFinished(String name, Outcome outcome);

	/**
	 * What one tick of a job did on this instance.
	 */
	enum Outcome {

		/** This instance took the lock and the job returned normally. */
		RAN("ran"),

		/** This instance took the lock and the job threw. */
		FAILED("failed"),

		/** Another instance held the lock: the job did not run here. */
		SKIPPED("skipped"),

		/** The lock store failed to answer: the job did not run here. */
		STORE_ERROR("store-error"),

		/**
		 * The lock store confirmed the lock only after its time-to-live had run out: the
		 * job did not run here.
		 */
		TTL_TOO_SHORT("ttl-too-short");

		private final String tagValue;

		Outcome(String tagValue) {
			this.tagValue = tagValue;
		}

		/**
		 * Return the outcome as a meter tag value.
		 * @return the tag value, such as {@code "skipped"}
		 */
		public String tagValue() {
			return this.tagValue;
		}

	}

}
