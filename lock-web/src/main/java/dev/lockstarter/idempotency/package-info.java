/**
 * Idempotent HTTP requests with the {@code Idempotency-Key} request header: the
 * annotation for Spring MVC handler methods, the filter and the interceptor that keep
 * each response and replay it to the retries of its request.
 */
@NullMarked
package dev.lockstarter.idempotency;

import org.jspecify.annotations.NullMarked;
