package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.ReactiveLockOperations;
import dev.lockstarter.core.ReactiveLockResults;
import dev.lockstarter.store.LockStoreException;
import org.springframework.core.ReactiveAdapter;

/**
 * Single-flight ({@link dev.lockstarter.annotation.OnConflict#SHARE_RESULT}) for methods
 * that return one value reactively ({@code Mono}, or a {@code suspend} function), as
 * {@link BlockingSingleFlight} does for the others, without blocking a thread: note the
 * id of the result already kept, try at once, else wait as a follower. A follower that
 * gets the lock returns a result kept after it arrived, without invoking the method, or
 * takes over when the holder left none. The holder keeps its outcome next to the lock
 * before releasing it (through
 * {@link dev.lockstarter.core.ReactiveLockResults#putResult}); a holder that is cancelled
 * keeps nothing and releases.
 */
final class ReactiveSingleFlight {

	private final ReactiveLockOperations locks;

	private final @Nullable ReactiveLockResults kept;

	private final ReactiveLeaseScope scope;

	private final ReactiveStoreFailures storeFailures;

	private final SharedResults results;

	private final Supplier<LockOptions> defaults;

	ReactiveSingleFlight(ReactiveLockOperations locks, ReactiveLeaseScope scope, ReactiveStoreFailures storeFailures,
			SharedResults results, Supplier<LockOptions> defaults) {
		this.locks = locks;
		this.kept = locks.results().orElse(null);
		this.scope = scope;
		this.storeFailures = storeFailures;
		this.results = results;
		this.defaults = defaults;
	}

	Mono<Object> invoke(MethodInvocation invocation, ExclusiveRequestAttribute attribute, ReactiveAdapter adapter,
			ResultSharing sharing, Observation observation) {
		String key;
		try {
			key = attribute.keyResolver().resolve(invocation.getArguments());
		}
		catch (RuntimeException ex) {
			return Mono.error(ex);
		}
		ReactiveLockResults stored = this.kept;
		if (stored == null) {
			return Mono.error(ResolvedLocks.noResults(this.locks));
		}
		Call call = new Call(invocation, attribute, adapter, sharing, observation);
		LockOptions options = call.options();
		Mono<Optional<Start>> started = stored.findResult(key)
			.map((bytes) -> Optional.ofNullable(SharedResult.idOf(bytes)))
			.defaultIfEmpty(Optional.empty())
			.flatMap((seen) -> this.locks.tryAcquire(key, options.withWaitTime(Duration.ZERO))
				.map((attempt) -> Optional.of(new Start(seen.orElse(null), attempt))))
			.onErrorResume(LockStoreException.class, (ex) -> this.storeFailures.answer(ex, attribute, observation));
		return this.scope.holding(started,
				(start) -> start.map(Start::attempt).map(ReactiveSingleFlight::leaseOf).orElse(null), (start) -> {
					if (start.isEmpty()) {
						return Mono.from(this.scope.proceed(invocation, adapter));
					}
					LockAttempt attempt = start.get().attempt();
					if (attempt.isAcquired()) {
						RequestObservations.acquired(observation);
						return runAndShare(call, attempt.lease());
					}
					return follow(call, key, options, start.get().seen());
				});
	}

	private Mono<Object> follow(Call call, String key, LockOptions options, @Nullable String seen) {
		ReactiveLockResults stored = keptResults();
		// Woken by a release, read the result first: when one was kept after this
		// caller arrived, it is returned without taking the lock
		AtomicReference<@Nullable SharedResult> woken = new AtomicReference<>();
		Mono<Boolean> newResult = this.results.reads().readReactive(stored, key, System.nanoTime()).map((bytes) -> {
			SharedResult found = this.results.keptSince(bytes, call.sharing, seen);
			if (found != null) {
				woken.set(found);
			}
			return found != null;
		}).onErrorResume(LockStoreException.class, (ex) -> Mono.just(false));
		return this.scope
			.holding(this.locks.tryAcquire(key, options, newResult), ReactiveSingleFlight::leaseOf, (attempt) -> {
				SharedResult kept = woken.get();
				if (kept != null) {
					return Mono.just(new Found(kept));
				}
				if (!attempt.isAcquired()) {
					return Mono.error(RequestObservations.conflict(call.attribute, attempt, options, call.observation));
				}
				return stored.findResult(key)
					.map((bytes) -> Optional.ofNullable(this.results.keptSince(bytes, call.sharing, seen)))
					.defaultIfEmpty(Optional.empty())
					.flatMap((found) -> {
						if (found.isPresent()) {
							return Mono.just(new Found(found.get()));
						}
						RequestObservations.acquired(call.observation);
						return runAndShare(call, attempt.lease());
					});
			})
			.flatMap((result) -> (result instanceof Found found) ? deliver(call, found.record()) : Mono.just(result));
	}

	private static @Nullable Lease leaseOf(LockAttempt attempt) {
		return attempt.isAcquired() ? attempt.lease() : null;
	}

	/**
	 * Invoke the method and keep its outcome next to the lock: the value, an empty
	 * completion, or the failure (unless a waiting caller takes over on failure). A value
	 * that cannot be serialized fails this caller like the waiting ones.
	 */
	private Mono<Object> runAndShare(Call call, Lease lease) {
		return Mono.from(this.scope.proceedWithin(call.invocation, call.adapter, lease)).onErrorResume((ex) -> {
			SharedResult failure = this.results.failureRecord(call.sharing, ex);
			return (failure != null) ? keep(call.sharing, lease, failure).then(Mono.error(ex)) : Mono.error(ex);
		})
			.flatMap((value) -> keepValue(call.sharing, lease, value).thenReturn(value))
			.switchIfEmpty(Mono.defer(() -> keep(call.sharing, lease, SharedResult.completion()).then(Mono.empty())));
	}

	private Mono<Void> keepValue(ResultSharing sharing, Lease lease, Object value) {
		SharedResults.ValueToKeep kept = this.results.valueToKeep(sharing, value);
		IllegalStateException unserializable = kept.unserializable();
		Mono<Void> keeping = keep(sharing, lease, kept.record());
		return (unserializable != null) ? keeping.then(Mono.error(unserializable)) : keeping;
	}

	/** Keep a record; a failure to keep it is logged, never signalled. */
	private Mono<Void> keep(ResultSharing sharing, Lease lease, SharedResult record) {
		return Mono.defer(() -> keptResults().putResult(lease, record.toBytes(), this.results.ttl(sharing)))
			.doOnNext((stored) -> {
				if (!stored) {
					SharedResults.logLostBeforeKept(sharing);
				}
			})
			.onErrorResume((ex) -> {
				SharedResults.logNotKept(sharing, ex);
				return Mono.empty();
			})
			.then();
	}

	private Mono<Object> deliver(Call call, SharedResult found) {
		this.results.shared(call.attribute.name(), call.observation);
		return switch (found.kind()) {
			case VALUE -> Mono.fromCallable(() -> this.results.value(found, call.sharing));
			case VOID -> Mono.empty();
			case FAILURE -> Mono.error(this.results.failure(found, call.sharing, call.attribute.name()));
		};
	}

	/** One subscription's call. */
	private final class Call {

		final MethodInvocation invocation;

		final ExclusiveRequestAttribute attribute;

		final ReactiveAdapter adapter;

		final ResultSharing sharing;

		final Observation observation;

		Call(MethodInvocation invocation, ExclusiveRequestAttribute attribute, ReactiveAdapter adapter,
				ResultSharing sharing, Observation observation) {
			this.invocation = invocation;
			this.attribute = attribute;
			this.adapter = adapter;
			this.sharing = sharing;
			this.observation = observation;
		}

		LockOptions options() {
			return this.attribute.sharedResultOptions(ReactiveSingleFlight.this.defaults.get());
		}

	}

	/**
	 * The id of the result kept before a single-flight call tried the lock, and that
	 * first attempt.
	 */
	private record Start(@Nullable String seen, LockAttempt attempt) {

	}

	/** A result kept by the run a follower waited for, to deliver once released. */
	private record Found(SharedResult record) {

	}

	private ReactiveLockResults keptResults() {
		ReactiveLockResults kept = this.kept;
		if (kept == null) {
			throw ResolvedLocks.noResults(this.locks);
		}
		return kept;
	}

}
