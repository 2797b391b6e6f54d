package dev.lockstarter.interceptor;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.ReactiveLockOperations;
import dev.lockstarter.store.LogSafe;
import org.springframework.core.ReactiveAdapter;

/**
 * What {@link LeaseScope} is to a blocking call, for a reactive one: invoke the method
 * with its lease as the current one, and release the lease when the method's publisher
 * completes, fails or is cancelled. Shared by the reactive handler and its single-flight.
 */
final class ReactiveLeaseScope {

	private static final Log logger = LogFactory.getLog(ReactiveLeaseScope.class);

	private final ReactiveLockOperations locks;

	ReactiveLeaseScope(ReactiveLockOperations locks) {
		this.locks = locks;
	}

	/**
	 * Run with what an acquisition gave, and release the lease it holds, if any, when the
	 * work completes (before its value is delivered), fails or is cancelled. The
	 * acquisition is the resource of {@code usingWhen}, not a value handed to it by an
	 * operator before: a lease granted just as the subscriber cancels is then released
	 * too, where it would otherwise reach no one, and the work is not started.
	 * @param acquisition the acquisition, subscribed to once
	 * @param leaseOf the lease of what it gave, or {@code null} for none
	 * @param work the work
	 */
	<A> Mono<Object> holding(Mono<A> acquisition, Function<A, @Nullable Lease> leaseOf,
			Function<A, Mono<Object>> work) {
		Function<A, Mono<Void>> release = (acquired) -> release(leaseOf.apply(acquired));
		return Mono.usingWhen(acquisition, work, release, (acquired, failure) -> release.apply(acquired), release);
	}

	/**
	 * Run with what an acquisition gave, as {@link #holding} does, for work of several
	 * values: each is delivered as it comes, and the lease released after the last.
	 * {@code Flux.usingWhen} subscribes to the work of a resource that arrives after the
	 * cancellation (and cancels it at once), so the work is replaced by an empty one
	 * then.
	 */
	<A> Flux<Object> holdingEach(Mono<A> acquisition, Function<A, @Nullable Lease> leaseOf,
			Function<A, ? extends Publisher<Object>> work) {
		return Flux.defer(() -> {
			AtomicBoolean cancelled = new AtomicBoolean();
			Function<A, Mono<Void>> release = (acquired) -> release(leaseOf.apply(acquired));
			return Flux
				.usingWhen(acquisition, (acquired) -> cancelled.get() ? Flux.empty() : work.apply(acquired), release,
						(acquired, failure) -> release.apply(acquired), release)
				.doOnCancel(() -> cancelled.set(true));
		});
	}

	/**
	 * Invoke the method, its publisher seeing the lease as the
	 * {@linkplain ReactiveExclusiveRequestContext#currentLease() current lease}.
	 */
	Flux<Object> proceedWithin(MethodInvocation invocation, ReactiveAdapter adapter, Lease lease) {
		return ReactiveExclusiveRequestContext.within(proceed(invocation, adapter), lease);
	}

	/** Invoke the method, without a lease. */
	Flux<Object> proceed(MethodInvocation invocation, ReactiveAdapter adapter) {
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			return Flux.error(ex);
		}
		return (result != null) ? Flux.from(adapter.toPublisher(result)) : Flux.empty();
	}

	/** Release; a failure is logged and the lock expires with its time-to-live. */
	private Mono<Void> release(@Nullable Lease lease) {
		if (lease == null) {
			return Mono.empty();
		}
		return this.locks.release(lease).onErrorResume((ex) -> {
			logger.warn("Failed to release lock '" + LogSafe.key(lease.key())
					+ "'; it expires at the end of its time-to-live", ex);
			return Mono.empty();
		}).then();
	}

}
