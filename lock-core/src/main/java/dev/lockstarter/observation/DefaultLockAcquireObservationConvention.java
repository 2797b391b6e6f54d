package dev.lockstarter.observation;

import io.micrometer.common.KeyValues;

/**
 * The default {@link LockAcquireObservationConvention}: observation {@code lock.acquire},
 * contextual name {@code lock acquire <name>}, key values {@code name}, {@code store} and
 * {@code outcome}.
 *
 * @since 0.1.0
 */
public class DefaultLockAcquireObservationConvention implements LockAcquireObservationConvention {

	/** The shared instance. */
	public static final DefaultLockAcquireObservationConvention INSTANCE = new DefaultLockAcquireObservationConvention();

	@Override
	public String getName() {
		return "lock.acquire";
	}

	@Override
	public String getContextualName(LockAcquireContext context) {
		return "lock acquire " + context.getLockName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockAcquireContext context) {
		return LockKeyValues.of(context);
	}

}
