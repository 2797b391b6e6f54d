package dev.lockstarter.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The convention of the {@link LockObservationDocumentation#EXCLUSIVE_REQUEST}
 * observation; implement it (or extend
 * {@link DefaultExclusiveRequestObservationConvention}) to change its name or key values.
 *
 * @since 0.1.0
 */
public interface ExclusiveRequestObservationConvention
		extends ObservationConvention<ExclusiveRequestObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof ExclusiveRequestObservationContext;
	}

}
