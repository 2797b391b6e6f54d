package dev.lockstarter.observation;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What the lock observations know: the lock's name, the kind of store, and the outcome
 * once known. The lock key is deliberately not part of it.
 *
 * @since 0.1.0
 */
public abstract class LockObservationContext extends Observation.Context {

	private final String lockName;

	private final String store;

	private @Nullable String outcome;

	/**
	 * Create a context.
	 * @param lockName the lock's name
	 * @param store the kind of store, such as {@code redis}
	 */
	protected LockObservationContext(String lockName, String store) {
		Assert.notNull(lockName, "'lockName' must not be null");
		Assert.notNull(store, "'store' must not be null");
		this.lockName = lockName;
		this.store = store;
	}

	/**
	 * Return the lock's name.
	 * @return the name
	 */
	public String getLockName() {
		return this.lockName;
	}

	/**
	 * Return the kind of store.
	 * @return the store, such as {@code redis}
	 */
	public String getStore() {
		return this.store;
	}

	/**
	 * Return how the observed work ended.
	 * @return the outcome, or {@code null} while unknown
	 */
	public @Nullable String getOutcome() {
		return this.outcome;
	}

	/**
	 * Set how the observed work ended.
	 * @param outcome the outcome tag value
	 */
	public void setOutcome(String outcome) {
		this.outcome = outcome;
	}

}
