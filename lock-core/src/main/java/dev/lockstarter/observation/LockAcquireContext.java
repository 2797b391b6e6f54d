package dev.lockstarter.observation;

/**
 * The context of the {@link LockObservationDocumentation#LOCK_ACQUIRE} observation.
 *
 * @since 0.1.0
 */
public class LockAcquireContext extends LockObservationContext {

	/**
	 * Create a context.
	 * @param lockName the lock's name
	 * @param store the kind of store
	 */
	public LockAcquireContext(String lockName, String store) {
		super(lockName, store);
	}

}
