package dev.lockstarter.autoconfigure;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Configuration properties of the in-memory lock store, used with
 * {@code lock.store=memory}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("lock.memory")
public class InMemoryLockStoreProperties implements InitializingBean {

	/**
	 * Most unexpired locks the store holds at once, and most kept results (single-flight
	 * and idempotent responses). A lock or result beyond it is refused as a store failure
	 * (503), so that callers who take many keys cannot exhaust the heap.
	 */
	private int maxEntries = 100_000;

	public int getMaxEntries() {
		return this.maxEntries;
	}

	public void setMaxEntries(int maxEntries) {
		this.maxEntries = maxEntries;
	}

	@Override
	public void afterPropertiesSet() {
		if (this.maxEntries < 1) {
			throw new InvalidConfigurationPropertyValueException("lock.memory.max-entries", this.maxEntries,
					"The in-memory store must be allowed at least one entry.");
		}
	}

}
