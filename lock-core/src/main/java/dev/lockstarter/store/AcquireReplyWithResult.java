package dev.lockstarter.store;

import org.jspecify.annotations.Nullable;

/**
 * The answer of {@link ResultStoringLockStore#tryAcquireReadingResult}: the acquisition,
 * and the result kept for the key when it was made.
 *
 * @param acquisition the acquisition's answer
 * @param keptResult the result's bytes, or {@code null} if none was kept
 * @since 0.1.0
 */
public record AcquireReplyWithResult(AcquireReply acquisition, byte @Nullable [] keptResult) {

}
