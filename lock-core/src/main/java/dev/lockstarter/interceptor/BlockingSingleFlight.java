package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;

import io.micrometer.observation.Observation;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockAttemptWithResult;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockResults;
import dev.lockstarter.store.LockStoreException;

/**
 * Single-flight ({@link dev.lockstarter.annotation.OnConflict#SHARE_RESULT}) for methods
 * that return a value or a {@link CompletionStage}.
 * <p>
 * The caller first notes the id of the result already kept for the key, if any, then
 * tries to acquire: at once, or else waiting as a follower. A follower woken by a release
 * (or a poll) reads the kept result before trying again, and returns one kept after it
 * arrived without taking the lock, so that all followers of one run are answered
 * together. A follower that gets the lock (the holder released it or died without a
 * result) looks for a result too: one whose id differs from the noted one was kept after
 * this caller arrived, by the run it waited for or a later one, and is returned;
 * otherwise the holder left nothing, and this caller takes over. The holder keeps its
 * outcome next to the lock before it releases.
 */
final class BlockingSingleFlight {

	private final SharedResults results;

	private final StoreFailures storeFailures;

	BlockingSingleFlight(SharedResults results, StoreFailures storeFailures) {
		this.results = results;
		this.storeFailures = storeFailures;
	}

	@Nullable Object invoke(MethodInvocation invocation, ExclusiveRequestAttribute attribute, ResultSharing sharing, String key,
			ResolvedLocks resolved, LockOptions options, Observation observation) throws Throwable {
		LockOperations locks = resolved.operations();
		LockResults kept = resolved.results();
		String seen;
		LockAttempt attempt;
		try {
			// One store call: the result already kept, and an attempt at once
			LockAttemptWithResult first = kept.tryAcquireReadingResult(key, options.withWaitTime(Duration.ZERO));
			seen = SharedResult.idOf(first.keptResult());
			attempt = first.attempt();
		}
		catch (LockStoreException ex) {
			return this.storeFailures.proceedWithoutLock(invocation, attribute.name(), ex, observation);
		}
		if (attempt.isAcquired()) {
			RequestObservations.acquired(observation);
			return runAndShare(invocation, attribute, sharing, attempt.lease());
		}
		NewResult woken = new NewResult(kept, key, sharing, seen, System.nanoTime());
		attempt = locks.tryAcquire(key, options, woken);
		if (woken.found != null) {
			return deliver(woken.found, attribute, sharing, observation);
		}
		if (!attempt.isAcquired()) {
			throw RequestObservations.conflict(attribute, attempt, options, observation);
		}
		Lease lease = attempt.lease();
		SharedResult found;
		try {
			found = this.results.keptSince(kept.findResult(key).orElse(null), sharing, seen);
		}
		catch (RuntimeException ex) {
			lease.close();
			throw ex;
		}
		if (found != null) {
			lease.close();
			return deliver(found, attribute, sharing, observation);
		}
		RequestObservations.acquired(observation);
		return runAndShare(invocation, attribute, sharing, lease);
	}

	/**
	 * Whether a follower, woken while it waits, finds a result kept after it arrived:
	 * then it stops waiting and returns that result without taking the lock, at the same
	 * time as every other follower woken by the same release. A store that cannot be read
	 * now is not a reason to stop: the follower waits on, and reads again once it holds
	 * the lock.
	 */
	private final class NewResult implements BooleanSupplier {

		private final LockResults kept;

		private final String key;

		private final ResultSharing sharing;

		private final @Nullable String seen;

		private final long arrivedAt;

		@Nullable SharedResult found;

		NewResult(LockResults kept, String key, ResultSharing sharing, @Nullable String seen, long arrivedAt) {
			this.kept = kept;
			this.key = key;
			this.sharing = sharing;
			this.seen = seen;
			this.arrivedAt = arrivedAt;
		}

		@Override
		public boolean getAsBoolean() {
			byte[] bytes;
			try {
				bytes = BlockingSingleFlight.this.results.reads().read(this.kept, this.key, this.arrivedAt);
			}
			catch (LockStoreException ex) {
				return false;
			}
			this.found = BlockingSingleFlight.this.results.keptSince(bytes, this.sharing, this.seen);
			return this.found != null;
		}

	}

	private @Nullable Object runAndShare(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
			ResultSharing sharing, Lease lease) throws Throwable {
		Object result;
		try {
			result = LeaseScope.proceedWithin(invocation, lease);
		}
		catch (Throwable ex) {
			try {
				keepFailure(sharing, lease, ex);
			}
			finally {
				lease.close();
			}
			throw ex;
		}
		if (!attribute.completionStage()) {
			try {
				keepValue(sharing, lease, result);
			}
			finally {
				lease.close();
			}
			return result;
		}
		if (!(result instanceof CompletionStage<?> stage)) {
			lease.close();
			return result;
		}
		// The caller's stage completes once the outcome is kept and the lock released,
		// and fails like the followers' when the value cannot be serialized
		CompletableFuture<@Nullable Object> shared = new CompletableFuture<>();
		stage.whenComplete((value, failure) -> {
			Throwable outcome = (failure instanceof CompletionException && failure.getCause() != null)
					? failure.getCause() : failure;
			try {
				if (outcome != null) {
					keepFailure(sharing, lease, outcome);
				}
				else {
					keepValue(sharing, lease, value);
				}
			}
			catch (Throwable ex) {
				outcome = ex;
			}
			finally {
				lease.close();
			}
			if (outcome != null) {
				shared.completeExceptionally(outcome);
			}
			else {
				shared.complete(value);
			}
		});
		return shared;
	}

	private void keepValue(ResultSharing sharing, Lease lease, @Nullable Object value) {
		SharedResults.ValueToKeep kept = this.results.valueToKeep(sharing, value);
		IllegalStateException unserializable = kept.unserializable();
		keep(sharing, lease, kept.record());
		if (unserializable != null) {
			throw unserializable;
		}
	}

	private void keepFailure(ResultSharing sharing, Lease lease, Throwable failure) {
		SharedResult record = this.results.failureRecord(sharing, failure);
		if (record != null) {
			keep(sharing, lease, record);
		}
	}

	/**
	 * Keep the outcome and release the lock, in one store call where the store can; the
	 * caller's {@code close()} that follows releases a lock the call failed to.
	 */
	private void keep(ResultSharing sharing, Lease lease, SharedResult record) {
		try {
			if (!lease.releaseKeepingResult(record.toBytes(), this.results.ttl(sharing))) {
				SharedResults.logLostBeforeKept(sharing);
			}
		}
		catch (RuntimeException ex) {
			SharedResults.logNotKept(sharing, ex);
		}
	}

	private @Nullable Object deliver(SharedResult found, ExclusiveRequestAttribute attribute, ResultSharing sharing,
			Observation observation) throws Throwable {
		this.results.shared(attribute.name(), observation);
		Object value = null;
		Throwable failure = null;
		switch (found.kind()) {
			case VALUE -> value = this.results.value(found, sharing);
			case VOID -> value = null;
			case FAILURE -> failure = this.results.failure(found, sharing, attribute.name());
		}
		if (attribute.completionStage()) {
			return (failure != null) ? CompletableFuture.failedFuture(failure)
					: CompletableFuture.completedFuture(value);
		}
		if (failure != null) {
			throw failure;
		}
		return value;
	}

}
