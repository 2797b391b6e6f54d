package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Internal;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.core.ReactiveLockResults;
import dev.lockstarter.core.ReactiveLockTemplate;
import dev.lockstarter.result.ResultCodec;
import dev.lockstarter.store.LockStoreException;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.Assert;

/**
 * Runs a method annotated with {@link dev.lockstarter.annotation.ExclusiveRequest} while
 * holding its lock.
 * <ul>
 * <li>Not acquired (after waiting, if the method waits): the method does not run, nothing
 * is released, and a {@link LockConflictException} is thrown.</li>
 * <li>The method throws: the lock is released and the exception propagates
 * unchanged.</li>
 * <li>The method returns: the lock is released; for a {@link CompletionStage}, when the
 * stage completes.</li>
 * <li>The key is already held by an enclosing annotated call on this thread: the method
 * runs under that lock, without locking again. With
 * {@link dev.lockstarter.annotation.ExclusiveRequest#eachKey() eachKey}, only the keys
 * that the enclosing calls do not hold are locked.</li>
 * <li>With {@code eachKey}, the method's keys are locked together, all or none, through
 * {@link LockOperations#tryAcquire(java.util.Collection, LockOptions)}; a conflict names
 * the lock's name, not the key that was held.</li>
 * <li>The method returns a reactive type ({@code Mono}, {@code Flux} or another type of
 * the {@link ReactiveAdapterRegistry}): nothing happens until the result is subscribed
 * to. Then the key is resolved and the lock acquired without blocking (through a
 * {@link ReactiveLockTemplate} on the {@link LockTemplate}), the method is invoked once
 * the lock is held, and the lock is released when its publisher completes, fails or is
 * cancelled (a client that disconnects cancels). A conflict, an invalid key and a store
 * failure are error signals, and the method is not invoked. A reactive call is not nested
 * in an enclosing call's lock: the same key conflicts.</li>
 * <li>Single-flight ({@link dev.lockstarter.annotation.OnConflict#SHARE_RESULT}): the
 * holder keeps its outcome (value, completion or failure) next to the lock, through the
 * {@link ResultCodec}, before it releases; a caller that waited for it returns that
 * outcome without running the method, or takes over when the holder left none. A method
 * that returns a single-value reactive type ({@code Mono}) shares the value it emits (an
 * empty completion as such) the same way, without blocking a thread: the result is read
 * and kept through {@link ReactiveLockResults#findResult} and
 * {@link ReactiveLockResults#putResult}, and a holder that is cancelled keeps nothing and
 * releases. A stream of several values ({@code Flux}) is rejected at startup.</li>
 * </ul>
 * A failure to release never replaces the method's outcome: it is logged and the lock
 * expires at the end of its time-to-live.
 * <p>
 * When the store fails to answer an acquisition, the {@link StoreFailurePolicy} decides:
 * by default the method does not run and the {@link LockStoreException} propagates
 * ({@link StoreFailurePolicy#FAIL_CLOSED}); with {@link StoreFailurePolicy#FAIL_OPEN} it
 * runs without a lock, and a WARN (at most one a second, counting the runs in between)
 * says so.
 * <p>
 * Each call that is not nested in a call holding the same lock is a {@code lock.request}
 * observation, whose scope is open while the method runs, so that the method's own
 * observations nest inside it.
 * <p>
 * This advice is thin: the handling of a call is {@link ExclusiveRequestAspectSupport}'s.
 *
 * @since 0.1.0
 */
@Internal
public class ExclusiveRequestInterceptor extends ExclusiveRequestAspectSupport implements MethodInterceptor {

	/**
	 * The time-to-live of shared results when neither the method nor the application sets
	 * one.
	 */
	public static final Duration DEFAULT_RESULT_TTL = SharedResults.DEFAULT_TTL;

	private final ExclusiveRequestAttributeSource attributeSource;

	/**
	 * Create a new interceptor. The suppliers are called once, on first use, so that the
	 * interceptor can be created before the lock store.
	 * @param attributeSource the source of parsed declarations
	 * @param locks the lock operations
	 * @param defaults the options of locks whose declaration sets none: time-to-live,
	 * wait time, renewal and maximum hold time
	 */
	public ExclusiveRequestInterceptor(ExclusiveRequestAttributeSource attributeSource, Supplier<LockOperations> locks,
			Supplier<LockOptions> defaults) {
		super(locks, defaults);
		Assert.notNull(attributeSource, "'attributeSource' must not be null");
		this.attributeSource = attributeSource;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		ExclusiveRequestAttribute attribute = this.attributeSource.getAttribute(invocation);
		return (attribute != null) ? execute(invocation, attribute) : invocation.proceed();
	}

}
