/**
 * Idempotent HTTP requests with the {@code Idempotency-Key} request header: the
 * {@link dev.lockstarter.idempotency.IdempotentRequest} annotation for Spring MVC and
 * Spring WebFlux handler methods; for Spring MVC, the
 * {@link dev.lockstarter.idempotency.IdempotentRequestBufferingFilter} servlet filter and
 * the {@link dev.lockstarter.idempotency.IdempotentRequestInterceptor}, which keeps each
 * response in the lock store or in the handler's transaction; for Spring WebFlux, the
 * {@link dev.lockstarter.idempotency.IdempotentRequestWebFilter}. Both stacks share one
 * configuration ({@link dev.lockstarter.idempotency.IdempotentRequestSupport}), one set
 * of rules, one fingerprint and one stored format, so that either replays the other's
 * responses.
 */
@NullMarked
package dev.lockstarter.idempotency;

import org.jspecify.annotations.NullMarked;
