package dev.lockstarter.core;

/**
 * Work to run while holding a lock, given the {@link Lease} (for its fencing token).
 *
 * @param <T> the result type
 * @since 0.1.0
 */
@FunctionalInterface
public interface LockCallback<T> {

	/**
	 * Run the guarded work.
	 * @param lease the held lease; it is released when this method returns or throws
	 * @return the result
	 */
	T doWithLock(Lease lease);

}
