package dev.lockstarter.interceptor;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.key.MethodKeyResolver;

/**
 * The parsed form of one method's {@link dev.lockstarter.annotation.ExclusiveRequest}.
 *
 * @param keyResolver builds the lock key from the method's arguments
 * @param ttl the lock's time-to-live, or {@code null} for the configured default
 * @param conflictStatus the HTTP status of a conflict, or 0 for the configured default
 * @param completionStage whether the method returns a {@link java.util.concurrent.CompletionStage},
 * whose completion releases the lock
 * @since 0.1.0
 */
public record ExclusiveRequestAttribute(MethodKeyResolver keyResolver, @Nullable Duration ttl, int conflictStatus,
		boolean completionStage) {

	/**
	 * Return the lock name.
	 * @return the lock name
	 */
	public String name() {
		return this.keyResolver.name();
	}

}
