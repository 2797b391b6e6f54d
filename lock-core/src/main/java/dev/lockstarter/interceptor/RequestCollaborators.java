package dev.lockstarter.interceptor;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.annotation.OnLeaseLost;
import dev.lockstarter.core.LockOptions;

/**
 * What the handlers of {@code @ExclusiveRequest} calls work with, made once by the
 * interceptor: the lock operations and default options (each resolved on first use), the
 * observations, the store-failure policy, the shared results of single-flight methods,
 * and the application's lease-loss policy.
 *
 * @param locks the lock operations and their abilities
 * @param defaults the options of locks whose declaration sets none
 * @param observations the {@code lock.request} observations
 * @param storeFailures what a method does when the store fails to answer
 * @param sharedResults the results of single-flight methods
 * @param onLeaseLost the lease-loss policy of the methods that declare none
 */
record RequestCollaborators(Supplier<ResolvedLocks> locks, Supplier<LockOptions> defaults,
		RequestObservations observations, StoreFailures storeFailures, SharedResults sharedResults,
		Supplier<OnLeaseLost> onLeaseLost) {

	/**
	 * Return the lock's name if the method is cancelled when its lease is lost,
	 * {@code null} if the loss is only reported.
	 */
	@Nullable String cancelledAs(ExclusiveRequestAttribute attribute) {
		return attribute.cancelsOnLeaseLost(this.onLeaseLost.get()) ? attribute.name() : null;
	}

}
