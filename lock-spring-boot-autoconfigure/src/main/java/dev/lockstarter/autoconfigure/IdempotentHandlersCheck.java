package dev.lockstarter.autoconfigure;

import java.util.List;
import java.util.Locale;

import dev.lockstarter.core.LockOperations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * The startup check shared by the servlet and the reactive idempotency configurations:
 * when a handler method is annotated with
 * {@link dev.lockstarter.idempotency.IdempotentRequest}, the lock store must keep
 * results.
 */
final class IdempotentHandlersCheck {

	private IdempotentHandlersCheck() {
	}

	/**
	 * Fail if handlers are annotated and the lock store keeps no results.
	 * @param idempotent the annotated handlers, sorted, as log descriptions
	 * @param locks the lock operations
	 * @param properties the lock properties
	 * @throws InvalidConfigurationPropertyValueException naming {@code lock.store}
	 */
	static void check(List<String> idempotent, LockOperations locks, LockProperties properties) {
		if (!idempotent.isEmpty() && locks.results().isEmpty()) {
			LockProperties.Store store = properties.getStore();
			throw new InvalidConfigurationPropertyValueException("lock.store",
					(store != null) ? store.name().toLowerCase(Locale.ROOT) : "(not set)",
					"The lock store keeps no results, which @IdempotentRequest needs (on " + idempotent.get(0)
							+ ((idempotent.size() > 1) ? " and " + (idempotent.size() - 1) + " more" : "")
							+ "). Choose a store that keeps results, such as redis or memory.");
		}
	}

}
