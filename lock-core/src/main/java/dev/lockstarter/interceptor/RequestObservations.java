package dev.lockstarter.interceptor;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.FinishedAttempt.Outcome;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.observation.DefaultExclusiveRequestObservationConvention;
import dev.lockstarter.observation.ExclusiveRequestObservationContext;
import dev.lockstarter.observation.ExclusiveRequestObservationConvention;
import dev.lockstarter.observation.LockObservationDocumentation;

/**
 * The {@code lock.request} observations of {@code @ExclusiveRequest} calls, blocking and
 * reactive, and the outcome that each call notes on its observation.
 */
final class RequestObservations {

	/**
	 * The Reactor context key of the current observation, as Micrometer's
	 * {@code ObservationThreadLocalAccessor.KEY}, which is not referenced so that
	 * context-propagation stays optional.
	 */
	static final String OBSERVATION_CONTEXT_KEY = "micrometer.observation";

	private final Supplier<ObservationRegistry> registry;

	private final Supplier<@Nullable ExclusiveRequestObservationConvention> convention;

	private final Supplier<String> storeName;

	RequestObservations(Supplier<ObservationRegistry> registry,
			Supplier<@Nullable ExclusiveRequestObservationConvention> convention, Supplier<String> storeName) {
		this.registry = registry;
		this.convention = convention;
		this.storeName = storeName;
	}

	ObservationRegistry registry() {
		return this.registry.get();
	}

	/**
	 * Create the observation of one call, not started; its parent is the current
	 * observation of the registry unless set otherwise.
	 */
	Observation create(ExclusiveRequestAttribute attribute) {
		return LockObservationDocumentation.EXCLUSIVE_REQUEST.observation(this.convention.get(),
				DefaultExclusiveRequestObservationConvention.INSTANCE,
				() -> new ExclusiveRequestObservationContext(attribute.name(), this.storeName.get()),
				this.registry.get());
	}

	/**
	 * Note that a call did not get its lock, and return the conflict to signal.
	 */
	static LockConflictException conflict(ExclusiveRequestAttribute attribute, LockAttempt attempt, LockOptions options,
			Observation observation) {
		outcome(observation, (options.getWaitTime().isZero() && options.getRetries() == 0) ? Outcome.CONFLICT.tagValue()
				: Outcome.WAIT_TIMEOUT.tagValue());
		return new LockConflictException(attribute.name(), attempt.retryAfter(), attribute.conflictStatus());
	}

	/**
	 * Return the lease of an attempt that acquired, noting the outcome; or note the
	 * conflict and throw it.
	 */
	static Lease leaseOf(ExclusiveRequestAttribute attribute, LockAttempt attempt, LockOptions options,
			Observation observation) {
		if (!attempt.isAcquired()) {
			throw conflict(attribute, attempt, options, observation);
		}
		acquired(observation);
		return attempt.lease();
	}

	static void acquired(Observation observation) {
		outcome(observation, Outcome.ACQUIRED.tagValue());
	}

	static void outcome(Observation observation, String outcome) {
		if (observation.getContext() instanceof ExclusiveRequestObservationContext context) {
			context.setOutcome(outcome);
		}
	}

	static void outcomeIfUnknown(Observation observation, String outcome) {
		if (observation.getContext() instanceof ExclusiveRequestObservationContext context
				&& context.getOutcome() == null) {
			context.setOutcome(outcome);
		}
	}

}
