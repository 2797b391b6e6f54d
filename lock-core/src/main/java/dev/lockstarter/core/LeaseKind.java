package dev.lockstarter.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What an acquired {@link AcquisitionAttempt} becomes: a lease this JVM holds, or one it
 * hands to an owner outside it.
 */
enum LeaseKind {

	/**
	 * A {@link StoreLease} per key (a {@link MultiStoreLease} over several), listed as
	 * held, told to the listeners, renewed as the options say, and lost at its local
	 * deadline.
	 */
	HELD {

		@Override
		Lease lease(AcquisitionAttempt attempt, LockEngine engine) {
			List<String> keys = attempt.keys();
			List<StoreLease> parts = new ArrayList<>(keys.size());
			for (int i = 0; i < keys.size(); i++) {
				parts.add(new StoreLease(engine.events(), attempt.store(), keys.get(i), attempt.storeKeys().get(i),
						attempt.token(), attempt.fencingToken(i), attempt.options(), attempt.sentAt(),
						engine.lossMargin()));
			}
			for (StoreLease part : parts) {
				engine.events().acquired(part);
			}
			LeaseRenewer renewer = attempt.options().isRenew() ? engine.renewer() : null;
			parts.forEach((part) -> part.timeWith(engine.deadlines(), renewer));
			return (parts.size() == 1) ? parts.get(0) : new MultiStoreLease(attempt.store(), parts);
		}

	},

	/**
	 * A {@link DetachedLease} on one key, owned by whoever has its owner token: neither
	 * listed, nor renewed.
	 */
	DETACHED {

		@Override
		Lease lease(AcquisitionAttempt attempt, LockEngine engine) {
			Instant expiresAt = Instant.now()
				.minusNanos(System.nanoTime() - attempt.sentAt())
				.plus(attempt.options().getTtl());
			return new DetachedLease(engine.store(), attempt.keys().get(0), attempt.storeKeys().get(0), attempt.token(),
					attempt.fencingToken(0), expiresAt);
		}

	};

	/**
	 * Make the lease of an attempt that acquired every key.
	 * @param attempt the attempt
	 * @param engine the engine of its template
	 * @return the lease
	 */
	abstract Lease lease(AcquisitionAttempt attempt, LockEngine engine);

}
