package dev.lockstarter.interceptor;

/**
 * What an {@link dev.lockstarter.annotation.ExclusiveRequest} method does when the lock
 * store fails to answer an acquisition
 * ({@link dev.lockstarter.store.LockStoreException}).
 *
 * @since 0.1.0
 * @see ExclusiveRequestInterceptor#setStoreFailurePolicy(StoreFailurePolicy)
 */
public enum StoreFailurePolicy {

	/**
	 * The method does not run and the {@code LockStoreException} propagates (a 503 in a
	 * web request). The default: mutual exclusion is never given up.
	 */
	FAIL_CLOSED,

	/**
	 * The method runs without a lock, and a WARN is logged. Mutual exclusion is given up
	 * while the store fails: concurrent duplicates run. Only for methods where
	 * availability matters more than exclusion.
	 */
	FAIL_OPEN

}
