package dev.lockstarter.interceptor;

import java.util.List;
import java.util.concurrent.CompletionStage;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.FinishedAttempt.Outcome;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.store.LockStoreException;
import org.springframework.util.Assert;

/**
 * Locks the methods that return a value or a {@link CompletionStage}, on the calling
 * thread: a key that an enclosing call on this thread holds runs the method within that
 * lease; otherwise the call is a {@code lock.request} observation, whose scope is open
 * while the method runs, that takes the lock (or goes to the
 * {@link BlockingSingleFlight}) and proceeds within the lease until the method returns,
 * throws, or its stage completes.
 */
final class BlockingLockingHandler {

	private final RequestCollaborators collaborators;

	private final BlockingSingleFlight singleFlight;

	BlockingLockingHandler(RequestCollaborators collaborators) {
		this.collaborators = collaborators;
		this.singleFlight = new BlockingSingleFlight(collaborators.sharedResults(), collaborators.storeFailures());
	}

	@Nullable Object invoke(MethodInvocation invocation, ExclusiveRequestAttribute attribute) throws Throwable {
		List<String> keys;
		if (attribute.eachKey()) {
			List<String> each = attribute.keyResolver().resolveEach(invocation.getArguments());
			keys = ExclusiveRequestContext.notHeld(each);
			if (keys.isEmpty()) {
				Lease enclosing = ExclusiveRequestContext.held(each.get(0));
				Assert.state(enclosing != null, "Every key is held, so the first one is");
				return LeaseScope.proceedWithin(invocation, enclosing);
			}
		}
		else {
			String key = attribute.keyResolver().resolve(invocation.getArguments());
			Lease enclosing = ExclusiveRequestContext.held(key);
			if (enclosing != null) {
				return LeaseScope.proceedWithin(invocation, enclosing);
			}
			keys = List.of(key);
		}
		return observed(invocation, attribute, keys);
	}

	/**
	 * Lock and run a call that is not nested in a call holding its lock, as a
	 * {@code lock.request} observation whose scope is open while the method runs.
	 */
	private @Nullable Object observed(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
			List<String> keys) throws Throwable {
		ObservationRegistry registry = this.collaborators.observations().registry();
		Observation observation = this.collaborators.observations().create(attribute).start();
		Object result;
		// A scope of a no-op registry changes nothing: it is not opened
		try (Observation.Scope scope = registry.isNoop() ? null : observation.openScope()) {
			ResultSharing sharing = attribute.resultSharing();
			result = (sharing != null)
					? this.singleFlight.invoke(invocation, attribute, sharing, keys.get(0),
							this.collaborators.locks().get(),
							attribute.sharedResultOptions(this.collaborators.defaults().get()), observation)
					: exclusive(invocation, attribute, keys, observation);
		}
		catch (Throwable ex) {
			RequestObservations.outcomeIfUnknown(observation, Outcome.ofFailure(ex).tagValue());
			observation.error(ex);
			observation.stop();
			throw ex;
		}
		if (attribute.completionStage() && result instanceof CompletionStage<?> stage) {
			stage.whenComplete((value, failure) -> {
				if (failure != null) {
					observation.error(failure);
				}
				observation.stop();
			});
		}
		else {
			observation.stop();
		}
		return result;
	}

	private @Nullable Object exclusive(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
			List<String> keys, Observation observation) throws Throwable {
		LockOptions options = attribute.options(this.collaborators.defaults().get());
		LockAttempt attempt;
		try {
			LockOperations locks = this.collaborators.locks().get().operations();
			attempt = attribute.eachKey() ? locks.tryAcquire(keys, options) : locks.tryAcquire(keys.get(0), options);
		}
		catch (LockStoreException ex) {
			FallbackMethod fallback = attribute.fallback();
			if (fallback != null && fallback.answers(ex)) {
				RequestObservations.outcome(observation, Outcome.STORE_ERROR.tagValue());
				return fallback.invoke(invocation, ex);
			}
			return this.collaborators.storeFailures().proceedWithoutLock(invocation, attribute.name(), ex, observation);
		}
		Lease lease;
		try {
			lease = RequestObservations.leaseOf(attribute, attempt, options, observation);
		}
		catch (LockConflictException ex) {
			FallbackMethod fallback = attribute.fallback();
			if (fallback == null) {
				throw ex;
			}
			return fallback.invoke(invocation, ex);
		}
		return LeaseScope.proceedAndRelease(invocation, lease, attribute.completionStage(),
				this.collaborators.cancelledAs(attribute), (failure) -> {
				});
	}

}
