package dev.lockstarter.web;

import java.util.List;

import reactor.core.publisher.Mono;

import dev.lockstarter.core.Internal;
import org.springframework.core.Ordered;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.util.Assert;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.reactive.result.view.ViewResolver;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;

/**
 * Answers the lock exceptions that escape Spring WebFlux's exception handler methods with
 * the problem responses of a {@link LockExceptionHandler}: those of functional endpoints
 * ({@code RouterFunction}, Kotlin's {@code coRouter}), whose errors reach no
 * {@code @ControllerAdvice}, and of web filters. Other exceptions, and responses that are
 * already committed, are left to the next handler.
 * <p>
 * Ordered ({@link #DEFAULT_ORDER}) ahead of Spring Boot's error handler, which would
 * answer a generic 500.
 *
 * @since 0.1.0
 */
@Internal
public class LockProblemWebExceptionHandler implements WebExceptionHandler, Ordered {

	/**
	 * The default order: ahead of Spring Boot's {@code ErrorWebExceptionHandler} (-1).
	 */
	public static final int DEFAULT_ORDER = -2;

	private final LockExceptionHandler problems;

	private final ServerResponse.Context context;

	private int order = DEFAULT_ORDER;

	/**
	 * Create a handler.
	 * @param problems the handler that builds the problem responses
	 * @param messageWriters the writers of response bodies, such as those of the
	 * application's {@code ServerCodecConfigurer}
	 */
	public LockProblemWebExceptionHandler(LockExceptionHandler problems, List<HttpMessageWriter<?>> messageWriters) {
		Assert.notNull(problems, "'problems' must not be null");
		Assert.notEmpty(messageWriters, "'messageWriters' must not be empty");
		this.problems = problems;
		List<HttpMessageWriter<?>> writers = List.copyOf(messageWriters);
		this.context = new ServerResponse.Context() {

			@Override
			public List<HttpMessageWriter<?>> messageWriters() {
				return writers;
			}

			@Override
			public List<ViewResolver> viewResolvers() {
				return List.of();
			}

		};
	}

	/**
	 * Set the order of this handler among the application's {@link WebExceptionHandler}s.
	 * @param order the order, {@link #DEFAULT_ORDER} by default
	 */
	public void setOrder(int order) {
		this.order = order;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	@Override
	public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
		ResponseEntity<ProblemDetail> problem = this.problems.handleException(ex);
		ProblemDetail body = (problem != null) ? problem.getBody() : null;
		if (problem == null || body == null || exchange.getResponse().isCommitted()) {
			return Mono.error(ex);
		}
		return ServerResponse.status(problem.getStatusCode())
			.headers((headers) -> headers.addAll(problem.getHeaders()))
			.bodyValue(body)
			.flatMap((response) -> response.writeTo(exchange, this.context));
	}

}
