package dev.lockstarter.interceptor;

import java.util.function.Function;

import io.micrometer.observation.Observation;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import dev.lockstarter.core.FinishedAttempt.Outcome;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LeaseLostException;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockCapabilities;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.ReactiveLockOperations;
import dev.lockstarter.core.ReactiveLockTemplate;
import dev.lockstarter.store.LockException;
import dev.lockstarter.store.LockStoreException;
import org.springframework.core.ReactiveAdapter;

/**
 * Locks the methods that return a reactive type ({@code Mono}, {@code Flux}, another type
 * of the {@link org.springframework.core.ReactiveAdapterRegistry}, or a Kotlin
 * {@code suspend} function, which Spring AOP runs as a {@code Mono} or {@code Flux}),
 * without blocking a thread: on each subscription, the key is resolved and the lock
 * acquired, the method is invoked once the lock is held, and the lock is released when
 * its publisher completes, fails or is cancelled. Single-flight methods go to the
 * {@link ReactiveSingleFlight}. A method cancelled on a lost lease
 * ({@link dev.lockstarter.annotation.OnLeaseLost#CANCEL}) has its publisher cancelled
 * when the lease is found lost, and its subscriber gets a
 * {@link dev.lockstarter.core.LeaseLostException}.
 * <p>
 * Only created when Reactor is present, as Spring's caching handles reactive methods.
 */
final class ReactiveLockingHandler {

	private final RequestCollaborators collaborators;

	private final ReactiveLockOperations locks;

	private final ReactiveLeaseScope scope;

	private final ReactiveStoreFailures storeFailures;

	private final ReactiveSingleFlight singleFlight;

	ReactiveLockingHandler(RequestCollaborators collaborators) {
		this.collaborators = collaborators;
		LockOperations operations = collaborators.locks().get().operations();
		this.locks = LockCapabilities.reactive(operations)
			.or(() -> LockCapabilities.template(operations).map(ReactiveLockTemplate::new))
			.orElseThrow(() -> new IllegalStateException("@ExclusiveRequest methods with a reactive return type need a "
					+ "LockTemplate or a LockOperations that is also a ReactiveLockOperations, not "
					+ operations.getClass().getName()));
		this.scope = new ReactiveLeaseScope(this.locks);
		this.storeFailures = new ReactiveStoreFailures(collaborators.storeFailures());
		this.singleFlight = new ReactiveSingleFlight(this.locks, this.scope, this.storeFailures,
				collaborators.sharedResults(), collaborators.defaults());
	}

	@Nullable Object invoke(MethodInvocation invocation, ExclusiveRequestAttribute attribute, ReactiveAdapter adapter) {
		if (adapter.isMultiValue()) {
			return adapter.fromPublisher(observing(attribute,
					(observation) -> this.scope.holdingEach(acquire(invocation, attribute, observation),
							Acquired::lease, (acquired) -> proceedHolding(invocation, attribute, adapter, acquired))));
		}
		ResultSharing sharing = attribute.resultSharing();
		Function<Observation, Publisher<Object>> guarded = (sharing != null)
				? (observation) -> this.singleFlight.invoke(invocation, attribute, adapter, sharing, observation)
				: (observation) -> this.scope.holding(acquire(invocation, attribute, observation), Acquired::lease,
						(acquired) -> Mono.from(proceedHolding(invocation, attribute, adapter, acquired)));
		// One value: delivered once the lock is released, as a method's return value is
		return adapter.fromPublisher(observing(attribute, guarded).next());
	}

	/**
	 * On each subscription, start a {@code lock.request} observation, as a child of the
	 * observation that the subscriber's Reactor context carries (the HTTP request's, in
	 * WebFlux), and carry it in the context of the guarded publisher, so that the
	 * method's own observations are its children.
	 */
	private Flux<Object> observing(ExclusiveRequestAttribute attribute,
			Function<Observation, Publisher<Object>> guarded) {
		return Flux.deferContextual((context) -> {
			Observation parent = context.getOrDefault(RequestObservations.OBSERVATION_CONTEXT_KEY, null);
			Observation observation = this.collaborators.observations()
				.create(attribute)
				.parentObservation(parent)
				.start();
			return Flux.from(guarded.apply(observation)).doOnError((ex) -> {
				RequestObservations.outcomeIfUnknown(observation, Outcome.ofFailure(ex).tagValue());
				observation.error(ex);
			})
				.doFinally((signal) -> observation.stop())
				.contextWrite((inner) -> inner.put(RequestObservations.OBSERVATION_CONTEXT_KEY, observation));
		});
	}

	/**
	 * Acquire on subscription: a lease, none when the store failed and the method runs
	 * without a lock ({@link StoreFailurePolicy#FAIL_OPEN}), or the failure, for the
	 * method's fallback to answer. Never an error signal, so that the acquisition can be
	 * the resource that {@code usingWhen} releases.
	 */
	private Mono<Acquired> acquire(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
			Observation observation) {
		@Nullable Object[] arguments = invocation.getArguments();
		LockOptions options = attribute.options(this.collaborators.defaults().get());
		Mono<LockAttempt> acquisition;
		try {
			acquisition = attribute.eachKey()
					? this.locks.tryAcquire(attribute.keyResolver().resolveEach(arguments), options)
					: this.locks.tryAcquire(attribute.keyResolver().resolve(arguments), options);
		}
		catch (RuntimeException ex) {
			// A key that cannot be resolved: the method is not invoked
			return Mono.just(Acquired.failed(ex));
		}
		return acquisition.map((attempt) -> RequestObservations.leaseOf(attribute, attempt, options, observation))
			.map(Acquired::held)
			.onErrorResume(LockStoreException.class,
					(ex) -> this.storeFailures.answer(ex, attribute, observation).map((none) -> Acquired.WITHOUT_LOCK))
			.onErrorResume((ex) -> Mono.just(Acquired.failed(ex)));
	}

	/**
	 * The acquisition failed: the method's fallback answers a failure that it takes
	 * ({@link FallbackMethod#answers}); any other failure is signalled.
	 */
	private Publisher<Object> fallbackOrError(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
			ReactiveAdapter adapter, Throwable failure) {
		FallbackMethod fallback = attribute.fallback();
		if (fallback == null || !fallback.answers(failure)) {
			return Flux.error(failure);
		}
		Object result;
		try {
			result = fallback.invoke(invocation, (LockException) failure);
		}
		catch (Throwable ex) {
			return Flux.error(ex);
		}
		return (result != null) ? Flux.from(adapter.toPublisher(result)) : Flux.empty();
	}

	private Publisher<Object> proceedHolding(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
			ReactiveAdapter adapter, Acquired acquired) {
		Throwable failure = acquired.failure();
		if (failure != null) {
			return fallbackOrError(invocation, attribute, adapter, failure);
		}
		Lease lease = acquired.lease();
		if (lease == null) {
			return this.scope.proceed(invocation, adapter);
		}
		return cancelOnLoss(lease, this.collaborators.cancelledAs(attribute),
				this.scope.proceedWithin(invocation, adapter, lease));
	}

	/**
	 * Cancel the method's publisher when its lease is found lost while it is subscribed
	 * to, with a {@link dev.lockstarter.core.LeaseLostException} as the error signal; the
	 * values emitted before stay delivered. The error is signalled on a parallel
	 * scheduler's thread, not on the thread that found the loss (the renewal thread), so
	 * that the cancellation's work does not delay the renewal of other leases.
	 * @param cancelledAs the lock's name, or {@code null} to leave the publisher as it is
	 */
	private static Flux<Object> cancelOnLoss(Lease lease, @Nullable String cancelledAs, Flux<Object> work) {
		if (cancelledAs == null) {
			return work;
		}
		return Flux.defer(() -> {
			// The loss completes the other publisher, which cancels the method's
			// publisher
			// (an error of the other would not cancel it); the error follows it
			Sinks.Empty<Object> loss = Sinks.empty();
			LeaseLossCancellation watch = LeaseLossCancellation.watch(lease, cancelledAs,
					(ex) -> Schedulers.parallel().schedule(loss::tryEmitEmpty));
			return work.takeUntilOther(loss.asMono()).concatWith(Mono.defer(() -> {
				LeaseLostException lost = watch.finish();
				return (lost != null) ? Mono.error(lost) : Mono.empty();
			})).doFinally((signal) -> watch.finish());
		});
	}

	/**
	 * What an acquisition gave: a lease, nothing (the method runs without a lock), or the
	 * failure to acquire.
	 */
	private record Acquired(@Nullable Lease lease, @Nullable Throwable failure) {

		static final Acquired WITHOUT_LOCK = new Acquired(null, null);

		static Acquired held(Lease lease) {
			return new Acquired(lease, null);
		}

		static Acquired failed(Throwable failure) {
			return new Acquired(null, failure);
		}

	}

}
