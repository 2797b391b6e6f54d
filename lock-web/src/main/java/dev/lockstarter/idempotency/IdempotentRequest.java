package dev.lockstarter.idempotency;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a Spring MVC or Spring WebFlux handler method idempotent for the requests that
 * carry an {@code Idempotency-Key} header: the first request with a key runs the method,
 * and its response (status, selected headers and body) is kept for the retention period;
 * a later request with the same key and the same payload gets that response again, with
 * an {@code Idempotent-Replayed: true} header, and the method does not run.
 *
 * <pre class="code">
 * &#64;PostMapping("/api/payments")
 * &#64;IdempotentRequest
 * public ResponseEntity&lt;Payment&gt; pay(&#64;RequestBody PaymentRequest request) { ... }
 * </pre>
 *
 * Keys are scoped by the request's authenticated principal (the servlet request's user
 * principal, or the WebFlux exchange's principal), or shared by every anonymous caller.
 * Requests are rejected with RFC 9457 problem responses:
 * <ul>
 * <li>400 when the key is missing (and {@link #required()}) or malformed;</li>
 * <li>409 while a request with the same key is in progress;</li>
 * <li>422 when the key was used for a request with a different payload (method, path,
 * query, content type or body).</li>
 * </ul>
 * Server errors (5xx) are not kept unless {@code lock.idempotency.store-server-errors} is
 * set, so a retry runs the method again; neither are 408, 409, 425 and 429 responses,
 * which ask the client to try again.
 * <p>
 * In Spring MVC ({@link IdempotentRequestInterceptor}), the method must complete its
 * response synchronously: asynchronous return values such as {@code Callable} or
 * {@code DeferredResult} are not supported. In Spring WebFlux
 * ({@link IdempotentRequestWebFilter}), any return type is: {@code Mono}, {@code Flux},
 * Kotlin {@code suspend} functions and plain values.
 *
 * @since 0.1.0
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentRequest {

	/**
	 * How long a response is kept for replays, overriding
	 * {@code lock.idempotency.retention}: a duration such as {@code "24h"}, {@code "30m"}
	 * or {@code "PT1H"}.
	 * @return the retention, empty for the configured default
	 */
	String retention() default "";

	/**
	 * Whether a request without an {@code Idempotency-Key} header is rejected with 400.
	 * When {@code false}, such a request runs the method without idempotency.
	 * @return {@code true} if the header is required (the default)
	 */
	boolean required() default true;

}
