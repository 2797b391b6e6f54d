package dev.lockstarter.interceptor;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.observation.Observation;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.FinishedAttempt.Outcome;
import dev.lockstarter.store.LockStoreException;

/**
 * Applies the {@link StoreFailurePolicy} of {@code @ExclusiveRequest} methods when the
 * store fails to answer an acquisition: fail closed, or run without a lock and say so in
 * a WARN, at most one a second, counting the runs in between. Blocking and reactive calls
 * share it.
 */
final class StoreFailures {

	private static final Log logger = LogFactory.getLog(StoreFailures.class);

	private static final long LOG_INTERVAL = TimeUnit.SECONDS.toNanos(1);

	private volatile StoreFailurePolicy policy = StoreFailurePolicy.FAIL_CLOSED;

	private final AtomicLong runsWithoutLock = new AtomicLong();

	private final AtomicLong loggedAt = new AtomicLong(System.nanoTime() - LOG_INTERVAL);

	StoreFailurePolicy policy() {
		return this.policy;
	}

	void setPolicy(StoreFailurePolicy policy) {
		this.policy = policy;
	}

	/**
	 * Decide what a call does after the store failed to answer its acquisition, and note
	 * the decision as the call's outcome.
	 * @return {@code true} if the method runs without a lock, {@code false} if the
	 * failure propagates
	 */
	boolean runWithoutLock(String name, LockStoreException failure, Observation observation) {
		if (this.policy != StoreFailurePolicy.FAIL_OPEN) {
			RequestObservations.outcome(observation, Outcome.STORE_ERROR.tagValue());
			return false;
		}
		RequestObservations.outcome(observation, "fail-open");
		long runs = this.runsWithoutLock.incrementAndGet();
		long now = System.nanoTime();
		long last = this.loggedAt.get();
		if (now - last >= LOG_INTERVAL && this.loggedAt.compareAndSet(last, now)) {
			this.runsWithoutLock.addAndGet(-runs);
			logger.warn("Lock store failed; running @ExclusiveRequest method(s) WITHOUT a lock, as the store "
					+ "failure policy is FAIL_OPEN: " + runs + " run(s) since the last warning, the latest of '" + name
					+ "': " + failure.getMessage());
		}
		return true;
	}

	/**
	 * The store failed to answer a blocking call's acquisition: rethrow, or proceed
	 * without a lock.
	 */
	@Nullable Object proceedWithoutLock(MethodInvocation invocation, String name, LockStoreException failure,
			Observation observation) throws Throwable {
		if (!runWithoutLock(name, failure, observation)) {
			throw failure;
		}
		return invocation.proceed();
	}

}
