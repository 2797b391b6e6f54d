package dev.lockstarter.observation;

/**
 * The context of the {@link LockObservationDocumentation#EXCLUSIVE_REQUEST} observation.
 *
 * @since 0.1.0
 */
public class ExclusiveRequestObservationContext extends LockObservationContext {

	/**
	 * Create a context.
	 * @param lockName the lock's name
	 * @param store the kind of store
	 */
	public ExclusiveRequestObservationContext(String lockName, String store) {
		super(lockName, store);
	}

}
