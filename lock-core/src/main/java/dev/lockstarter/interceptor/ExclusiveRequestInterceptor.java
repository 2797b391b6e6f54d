package dev.lockstarter.interceptor;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockStoreException;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.Assert;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a method annotated with {@link dev.lockstarter.annotation.ExclusiveRequest} while
 * holding its lock.
 * <ul>
 * <li>Not acquired (after waiting, if the method waits): the method does not run, nothing is
 * released, and a {@link LockConflictException} is thrown.</li>
 * <li>The method throws: the lock is released and the exception propagates unchanged.</li>
 * <li>The method returns: the lock is released; for a {@link CompletionStage}, when the stage
 * completes.</li>
 * <li>The key is already held by an enclosing annotated call on this thread: the method runs
 * under that lock, without locking again.</li>
 * </ul>
 * A failure to release never replaces the method's outcome: it is logged and the lock expires
 * at the end of its time-to-live.
 * <p>
 * When the store fails to answer an acquisition, the {@link StoreFailurePolicy} decides: by
 * default the method does not run and the {@link LockStoreException} propagates
 * ({@link StoreFailurePolicy#FAIL_CLOSED}); with {@link StoreFailurePolicy#FAIL_OPEN} it runs
 * without a lock, and a WARN (at most one a second, counting the runs in between) says so.
 *
 * @since 0.1.0
 */
public class ExclusiveRequestInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(ExclusiveRequestInterceptor.class);

	private static final long FAIL_OPEN_LOG_INTERVAL = TimeUnit.SECONDS.toNanos(1);

	private final ExclusiveRequestAttributeSource attributeSource;

	private final Supplier<LockOperations> locks;

	private final Supplier<LockOptions> defaults;

	private volatile StoreFailurePolicy storeFailurePolicy = StoreFailurePolicy.FAIL_CLOSED;

	private final AtomicLong failOpenRuns = new AtomicLong();

	private final AtomicLong failOpenLoggedAt = new AtomicLong(System.nanoTime() - FAIL_OPEN_LOG_INTERVAL);

	/**
	 * Create a new interceptor. The suppliers are called once, on first use, so that the
	 * interceptor can be created before the lock store.
	 * @param attributeSource the source of parsed declarations
	 * @param locks the lock operations
	 * @param defaults the options of locks whose declaration sets none: time-to-live, wait
	 * time, renewal and maximum hold time
	 */
	public ExclusiveRequestInterceptor(ExclusiveRequestAttributeSource attributeSource,
			Supplier<LockOperations> locks, Supplier<LockOptions> defaults) {
		Assert.notNull(attributeSource, "'attributeSource' must not be null");
		Assert.notNull(locks, "'locks' must not be null");
		Assert.notNull(defaults, "'defaults' must not be null");
		this.attributeSource = attributeSource;
		this.locks = SingletonSupplier.of(locks);
		this.defaults = SingletonSupplier.of(defaults);
	}

	/**
	 * Set what a method does when the store fails to answer its acquisition. Default:
	 * {@link StoreFailurePolicy#FAIL_CLOSED}.
	 * @param storeFailurePolicy the policy
	 */
	public void setStoreFailurePolicy(StoreFailurePolicy storeFailurePolicy) {
		Assert.notNull(storeFailurePolicy, "'storeFailurePolicy' must not be null");
		this.storeFailurePolicy = storeFailurePolicy;
	}

	/**
	 * Return what a method does when the store fails to answer its acquisition.
	 * @return the policy
	 */
	public StoreFailurePolicy getStoreFailurePolicy() {
		return this.storeFailurePolicy;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		ExclusiveRequestAttribute attribute = this.attributeSource.getAttribute(invocation.getMethod(), targetClass);
		if (attribute == null) {
			return invocation.proceed();
		}
		String key = attribute.keyResolver().resolve(invocation.getArguments());
		Lease enclosing = ExclusiveRequestContext.held(key);
		if (enclosing != null) {
			return proceedWithin(invocation, enclosing);
		}
		LockAttempt attempt;
		try {
			attempt = this.locks.get().tryAcquire(key, attribute.options(this.defaults.get()));
		}
		catch (LockStoreException ex) {
			if (this.storeFailurePolicy != StoreFailurePolicy.FAIL_OPEN) {
				throw ex;
			}
			logFailOpen(attribute.name(), ex);
			return invocation.proceed();
		}
		if (!attempt.isAcquired()) {
			throw new LockConflictException(attribute.name(), attempt.holderRemainingTtl(),
					attribute.conflictStatus());
		}
		Lease lease = attempt.lease();
		if (attribute.completionStage()) {
			return proceedAsync(invocation, lease);
		}
		try {
			return proceedWithin(invocation, lease);
		}
		finally {
			lease.close();
		}
	}

	private void logFailOpen(String name, LockStoreException failure) {
		long runs = this.failOpenRuns.incrementAndGet();
		long now = System.nanoTime();
		long last = this.failOpenLoggedAt.get();
		if (now - last >= FAIL_OPEN_LOG_INTERVAL && this.failOpenLoggedAt.compareAndSet(last, now)) {
			this.failOpenRuns.addAndGet(-runs);
			logger.warn("Lock store failed; running @ExclusiveRequest method(s) WITHOUT a lock, as the store "
					+ "failure policy is FAIL_OPEN: " + runs + " run(s) since the last warning, the latest of '"
					+ name + "': " + failure.getMessage());
		}
	}

	private static @Nullable Object proceedWithin(MethodInvocation invocation, Lease lease) throws Throwable {
		ExclusiveRequestContext.push(lease);
		try {
			return invocation.proceed();
		}
		finally {
			ExclusiveRequestContext.pop();
		}
	}

	private static @Nullable Object proceedAsync(MethodInvocation invocation, Lease lease) throws Throwable {
		Object result;
		try {
			result = proceedWithin(invocation, lease);
		}
		catch (Throwable ex) {
			lease.close();
			throw ex;
		}
		if (result instanceof CompletionStage<?> stage) {
			stage.whenComplete((value, failure) -> lease.close());
		}
		else {
			lease.close();
		}
		return result;
	}

}
