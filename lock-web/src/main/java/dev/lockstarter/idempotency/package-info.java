/**
 * Idempotent HTTP requests with the {@code Idempotency-Key} request header: the
 * annotation for Spring MVC and Spring WebFlux handler methods, the servlet filter and
 * interceptor, and the WebFlux filter, that keep each response and replay it to the
 * retries of its request, with one set of rules and one stored format.
 */
@NullMarked
package dev.lockstarter.idempotency;

import org.jspecify.annotations.NullMarked;
