package dev.lockstarter.interceptor;

import java.util.Optional;

import io.micrometer.observation.Observation;
import reactor.core.publisher.Mono;

import dev.lockstarter.core.FinishedAttempt.Outcome;
import dev.lockstarter.store.LockStoreException;

/**
 * The {@link StoreFailures} policy, answered as a reactive method's acquisition needs it.
 * Shared by the reactive handler and its single-flight.
 */
final class ReactiveStoreFailures {

	private final StoreFailures storeFailures;

	ReactiveStoreFailures(StoreFailures storeFailures) {
		this.storeFailures = storeFailures;
	}

	/**
	 * The store failed to answer: an error signal, or, with
	 * {@link StoreFailurePolicy#FAIL_OPEN}, an empty optional, for the method to run
	 * without a lock. A failure that the method's fallback answers is always signalled.
	 */
	<T> Mono<Optional<T>> answer(LockStoreException failure, ExclusiveRequestAttribute attribute,
			Observation observation) {
		FallbackMethod fallback = attribute.fallback();
		if (fallback != null && fallback.answers(failure)) {
			// Answered by the fallback, whatever the policy
			RequestObservations.outcome(observation, Outcome.STORE_ERROR.tagValue());
			return Mono.error(failure);
		}
		return this.storeFailures.runWithoutLock(attribute.name(), failure, observation) ? Mono.just(Optional.empty())
				: Mono.error(failure);
	}

}
