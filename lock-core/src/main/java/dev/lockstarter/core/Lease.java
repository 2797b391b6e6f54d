package dev.lockstarter.core;

/**
 * A held lock. Closing the lease releases the lock if, and only if, it is still owned by this
 * lease: a lease whose lock expired and was taken by another owner deletes nothing.
 *
 * <pre class="code">
 * try (Lease lease = locks.acquire("user:" + id, Duration.ofSeconds(10))) {
 *     // at most one holder of "user:42" across every instance runs this
 * }
 * </pre>
 *
 * @since 0.1.0
 */
public interface Lease extends AutoCloseable {

	/**
	 * Return the key this lease holds, as given to {@link LockOperations} (without the store's
	 * key prefix).
	 * @return the key
	 */
	String key();

	/**
	 * Release the lock by compare-and-delete on this lease's owner token. Calling it again is a
	 * no-op that returns {@code false}.
	 * @return {@code true} if the lock was still owned by this lease and is now deleted;
	 * {@code false} if it had expired or was already released
	 * @throws LockStoreException if the store cannot be reached; the lock then expires at the
	 * end of its time-to-live
	 */
	boolean release();

	/**
	 * Release the lock, as {@link #release()}, but never throw: a store failure is logged and
	 * the lock expires at the end of its time-to-live. This keeps the exception of a failed
	 * guarded block intact in try-with-resources.
	 */
	@Override
	void close();

}
