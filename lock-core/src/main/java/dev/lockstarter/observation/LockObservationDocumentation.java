package dev.lockstarter.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of locking and their key values. None carries a lock key: keys hold
 * user data, and every distinct value would be a new time series.
 *
 * @since 0.1.0
 */
public enum LockObservationDocumentation implements ObservationDocumentation {

	/**
	 * One acquisition, from the first attempt to its outcome, waiting included.
	 */
	LOCK_ACQUIRE {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultLockAcquireObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

	},

	/**
	 * One call of an {@link dev.lockstarter.annotation.ExclusiveRequest} method: the
	 * acquisition, the method's own work and the release. Its scope is open while the
	 * method runs, so what the method observes (queries, HTTP calls) nests inside it.
	 */
	EXCLUSIVE_REQUEST {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultExclusiveRequestObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

	};

	/**
	 * Low-cardinality key values of both observations.
	 */
	public enum LowCardinalityKeyNames implements KeyName {

		/** The lock's name, such as {@code UserService.register}. */
		NAME {

			@Override
			public String asString() {
				return "name";
			}

		},

		/** The kind of lock store, such as {@code redis}. */
		STORE {

			@Override
			public String asString() {
				return "store";
			}

		},

		/**
		 * How it ended: {@code acquired}, {@code conflict}, {@code wait-timeout},
		 * {@code store-error}, {@code interrupted}; for a request also {@code shared}
		 * (the waiter received the holder's result), {@code reentrant} (the caller
		 * already held the lock) and {@code fail-open} (ran without a lock).
		 */
		OUTCOME {

			@Override
			public String asString() {
				return "outcome";
			}

		}

	}

}
