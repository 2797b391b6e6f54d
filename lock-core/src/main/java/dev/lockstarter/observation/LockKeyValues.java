package dev.lockstarter.observation;

import io.micrometer.common.KeyValues;

import dev.lockstarter.observation.LockObservationDocumentation.LowCardinalityKeyNames;

/**
 * The low-cardinality key values both default conventions share.
 */
final class LockKeyValues {

	static final String UNKNOWN = "unknown";

	private LockKeyValues() {
	}

	static KeyValues of(LockObservationContext context) {
		String outcome = context.getOutcome();
		return KeyValues.of(LowCardinalityKeyNames.NAME.withValue(context.getLockName()),
				LowCardinalityKeyNames.STORE.withValue(context.getStore()),
				LowCardinalityKeyNames.OUTCOME.withValue((outcome != null) ? outcome : UNKNOWN));
	}

}
