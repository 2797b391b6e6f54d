package dev.lockstarter.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The convention of the {@link LockObservationDocumentation#LOCK_ACQUIRE} observation;
 * implement it (or extend {@link DefaultLockAcquireObservationConvention}) to change its
 * name or key values.
 *
 * @since 0.1.0
 */
public interface LockAcquireObservationConvention extends ObservationConvention<LockAcquireContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LockAcquireContext;
	}

}
