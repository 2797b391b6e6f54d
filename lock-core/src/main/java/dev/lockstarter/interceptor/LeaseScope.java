package dev.lockstarter.interceptor;

import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;

/**
 * Proceeds with an invocation within a lease, for requests and jobs alike: the lease is
 * the {@linkplain ExclusiveRequestContext#currentLease() current lease} while the method
 * runs, and it is released when the method returns or throws, or, for a
 * {@link CompletionStage}, when the stage completes.
 */
final class LeaseScope {

	private LeaseScope() {
	}

	/**
	 * Proceed with the lease as the current one, without releasing it.
	 */
	static @Nullable Object proceedWithin(MethodInvocation invocation, Lease lease) throws Throwable {
		ExclusiveRequestContext.push(lease);
		try {
			return invocation.proceed();
		}
		finally {
			ExclusiveRequestContext.pop();
		}
	}

	/**
	 * Proceed with the lease as the current one and release it once the method is done.
	 * @param completionStage whether the method returns a stage, whose completion ends it
	 * @param done told, after the release, how the method ended: {@code null} when it
	 * returned, its failure otherwise
	 */
	static @Nullable Object proceedAndRelease(MethodInvocation invocation, Lease lease, boolean completionStage,
			Consumer<@Nullable Throwable> done) throws Throwable {
		return proceedAndRelease(invocation, lease, completionStage, null, done);
	}

	/**
	 * Proceed as {@link #proceedAndRelease(MethodInvocation, Lease, boolean, Consumer)}
	 * does, cancelling the method if its lease is found lost while it runs
	 * ({@link LeaseLossCancellation}).
	 * @param cancelledAs the lock's name if the method is cancelled on a loss,
	 * {@code null} if the loss is only reported
	 */
	static @Nullable Object proceedAndRelease(MethodInvocation invocation, Lease lease, boolean completionStage,
			@Nullable String cancelledAs, Consumer<@Nullable Throwable> done) throws Throwable {
		Object result;
		try {
			result = (cancelledAs != null)
					? LeaseLossCancellation.run(() -> proceedWithin(invocation, lease), lease, cancelledAs)
					: proceedWithin(invocation, lease);
		}
		catch (Throwable ex) {
			lease.close();
			done.accept(ex);
			throw ex;
		}
		if (completionStage && result instanceof CompletionStage<?> stage) {
			stage.whenComplete((value, failure) -> {
				lease.close();
				done.accept(failure);
			});
		}
		else {
			lease.close();
			done.accept(null);
		}
		return result;
	}

}
