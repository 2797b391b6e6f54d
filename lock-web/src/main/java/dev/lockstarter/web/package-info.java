/**
 * Maps lock exceptions to RFC 9457 problem responses, with the same bodies on both web
 * stacks: the {@link dev.lockstarter.web.LockExceptionHandler} controller advice, for
 * Spring MVC and Spring WebFlux handler methods, the
 * {@link dev.lockstarter.web.LockProblemWebExceptionHandler}, for the errors of WebFlux
 * functional endpoints and web filters, and the stable problem
 * {@link dev.lockstarter.web.LockProblemTypes types}.
 */
@NullMarked
package dev.lockstarter.web;

import org.jspecify.annotations.NullMarked;
