package dev.lockstarter.core;

/**
 * Published when a held lock is found lost: its renewal found the key gone or owned by
 * someone else, or no renewal was confirmed by the lease's local deadline, its
 * time-to-live less the loss margin after its last confirmed write. The work guarded by
 * the lock is no longer exclusive. Published through the
 * {@link org.springframework.context.ApplicationEventPublisher} given to
 * {@link LockTemplate}.
 *
 * @param key the lock's key, as given to {@link LockOperations}
 * @param reason why the lock is considered lost
 * @since 0.1.0
 */
public record LockLostEvent(String key, String reason) {
}
