package dev.lockstarter.idempotency;

import java.time.Duration;

import dev.lockstarter.core.Internal;

/**
 * The parsed form of one handler method's {@link IdempotentRequest}.
 *
 * @param retention how long the method's responses are kept for replays, positive
 * @param required whether a request without an idempotency key is rejected
 * @since 0.1.0
 */
@Internal
public record IdempotentRequestAttribute(Duration retention, boolean required) {

}
