package dev.lockstarter.core;

/**
 * Published when a held lock is found lost: its renewal found the key gone or owned by
 * someone else, or the store could not be reached until the lock's time-to-live passed.
 * The work guarded by the lock is no longer exclusive. Published through the
 * {@link org.springframework.context.ApplicationEventPublisher} given to
 * {@link LockTemplate}.
 *
 * @param key the lock's key, as given to {@link LockOperations}
 * @param reason why the lock is considered lost
 * @since 0.1.0
 */
public record LockLostEvent(String key, String reason) {
}
