package dev.lockstarter.observation;

import io.micrometer.common.KeyValues;

/**
 * The default {@link ExclusiveRequestObservationConvention}: observation
 * {@code lock.request}, contextual name {@code lock <name>}, key values {@code name},
 * {@code store} and {@code outcome}.
 *
 * @since 0.1.0
 */
public class DefaultExclusiveRequestObservationConvention implements ExclusiveRequestObservationConvention {

	/** The shared instance. */
	public static final DefaultExclusiveRequestObservationConvention INSTANCE = new DefaultExclusiveRequestObservationConvention();

	@Override
	public String getName() {
		return "lock.request";
	}

	@Override
	public String getContextualName(ExclusiveRequestObservationContext context) {
		return "lock " + context.getLockName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(ExclusiveRequestObservationContext context) {
		return LockKeyValues.of(context);
	}

}
