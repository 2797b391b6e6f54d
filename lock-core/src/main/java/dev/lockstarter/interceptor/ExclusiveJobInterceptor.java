package dev.lockstarter.interceptor;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.annotation.OnLeaseLost;
import dev.lockstarter.core.Internal;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTtlTooShortException;
import dev.lockstarter.interceptor.ExclusiveJobListener.Outcome;
import dev.lockstarter.store.LockStoreException;
import org.springframework.util.Assert;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a method annotated with {@link dev.lockstarter.annotation.ExclusiveJob} while
 * holding its lock, on the one instance per tick that takes it.
 * <ul>
 * <li>Acquired: the job runs and the lock is released when it returns or throws (for a
 * {@link CompletionStage}, when the stage completes), but kept until the job's minimum
 * hold time has passed since it was taken. The job's exception propagates unchanged.</li>
 * <li>Held by another instance: the job does not run; the call returns the method's
 * {@linkplain ExclusiveJobAttribute#skippedResult() empty result} and logs at DEBUG.</li>
 * <li>The store fails to answer: the job does not run (fail closed, whatever the
 * {@link StoreFailurePolicy} of {@code @ExclusiveRequest} methods), the call returns the
 * empty result, and a WARN of one line, without stack trace, says so (the stack trace is
 * logged at DEBUG).</li>
 * </ul>
 * The lock is never waited for. While the job runs, its lease is the
 * {@linkplain ExclusiveRequestContext#currentLease() current lease}, with its fencing
 * token.
 *
 * @since 0.1.0
 */
@Internal
public class ExclusiveJobInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(ExclusiveJobInterceptor.class);

	private final ExclusiveJobAttributeSource attributeSource;

	private final Supplier<LockOperations> locks;

	private final Supplier<LockOptions> defaults;

	private Supplier<List<ExclusiveJobListener>> listeners = List::of;

	private volatile OnLeaseLost onLeaseLost = OnLeaseLost.REPORT;

	/**
	 * Create a new interceptor. The suppliers are called once, on first use, so that the
	 * interceptor can be created before the lock store.
	 * @param attributeSource the source of parsed declarations
	 * @param locks the lock operations
	 * @param defaults the options of jobs whose declaration sets none: time-to-live,
	 * renewal and maximum hold time (the wait time is ignored: a job never waits)
	 */
	public ExclusiveJobInterceptor(ExclusiveJobAttributeSource attributeSource, Supplier<LockOperations> locks,
			Supplier<LockOptions> defaults) {
		Assert.notNull(attributeSource, "'attributeSource' must not be null");
		Assert.notNull(locks, "'locks' must not be null");
		Assert.notNull(defaults, "'defaults' must not be null");
		this.attributeSource = attributeSource;
		this.locks = SingletonSupplier.of(locks);
		this.defaults = SingletonSupplier.of(defaults);
	}

	/**
	 * Set the listeners told about each tick. The supplier is called once, on first use.
	 * @param listeners the supplier of the listeners
	 */
	public void setListeners(Supplier<List<ExclusiveJobListener>> listeners) {
		Assert.notNull(listeners, "'listeners' must not be null");
		this.listeners = SingletonSupplier.of(listeners);
	}

	/**
	 * Set what happens to the jobs that declare no {@code onLeaseLost} when their lease
	 * is found lost while they run. Default: {@link OnLeaseLost#REPORT}.
	 * {@link OnLeaseLost#CANCEL} interrupts the job's thread; it does not apply to jobs
	 * that return a {@link CompletionStage}, which keep reporting.
	 * @param onLeaseLost {@link OnLeaseLost#REPORT} or {@link OnLeaseLost#CANCEL}
	 * @since 0.1.0
	 */
	public void setOnLeaseLost(OnLeaseLost onLeaseLost) {
		Assert.isTrue(onLeaseLost == OnLeaseLost.REPORT || onLeaseLost == OnLeaseLost.CANCEL,
				"'onLeaseLost' must be REPORT or CANCEL");
		this.onLeaseLost = onLeaseLost;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		ExclusiveJobAttribute attribute = this.attributeSource.getAttribute(invocation);
		if (attribute == null) {
			return invocation.proceed();
		}
		String name = attribute.name();
		LockAttempt attempt;
		try {
			attempt = this.locks.get().tryAcquire(name, attribute.options(this.defaults.get()));
		}
		catch (LockStoreException ex) {
			logger.warn("Job '" + name + "' did not run on this instance: the lock store failed (" + ex.getMessage()
					+ "); it runs again on the next tick that reaches the store");
			if (logger.isDebugEnabled()) {
				logger.debug("Lock store failure of job '" + name + "'", ex);
			}
			notify(name, Outcome.STORE_ERROR);
			return attribute.skippedResult();
		}
		catch (LockTtlTooShortException ex) {
			logger.warn("Job '" + name + "' did not run on this instance: " + ex.getMessage()
					+ "; it runs again on the next tick, and a longer ttl keeps this from happening");
			notify(name, Outcome.TTL_TOO_SHORT);
			return attribute.skippedResult();
		}
		if (!attempt.isAcquired()) {
			if (logger.isDebugEnabled()) {
				logger.debug("Job '" + name + "' skipped on this instance: another instance holds its lock for "
						+ attempt.holderRemainingTtl() + " more");
			}
			notify(name, Outcome.SKIPPED);
			return attribute.skippedResult();
		}
		return LeaseScope.proceedAndRelease(invocation, attempt.lease(), attribute.completionStage(),
				attribute.cancelsOnLeaseLost(this.onLeaseLost) ? name : null,
				(failure) -> notify(name, (failure != null) ? Outcome.FAILED : Outcome.RAN));
	}

	private void notify(String name, Outcome outcome) {
		for (ExclusiveJobListener listener : this.listeners.get()) {
			try {
				listener.tickFinished(name, outcome);
			}
			catch (RuntimeException ex) {
				logger.warn("Exclusive job listener " + listener + " failed", ex);
			}
		}
	}

}
