package dev.lockstarter.core;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of {@link LockResults#tryAcquireReadingResult}: the attempt, and the result
 * kept for the key ({@link Lease#putResult}) when it was made.
 *
 * @param attempt the attempt
 * @param keptResult the result's bytes, or {@code null} if none was kept
 * @since 0.1.0
 */
public record LockAttemptWithResult(LockAttempt attempt, byte @Nullable [] keptResult) {

}
