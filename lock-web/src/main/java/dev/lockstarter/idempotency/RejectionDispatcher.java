package dev.lockstarter.idempotency;

import java.util.List;

import reactor.core.publisher.Mono;

import org.springframework.web.reactive.DispatchExceptionHandler;
import org.springframework.web.reactive.HandlerResult;
import org.springframework.web.reactive.HandlerResultHandler;
import org.springframework.web.server.ServerWebExchange;

/**
 * Answers the rejection of an idempotent request in a WebFlux application as the
 * {@code DispatcherHandler} answers an exception of a handler: through the
 * {@code @ExceptionHandler} methods of the application's controller advice (the
 * {@link DispatchExceptionHandler}s among its handler adapters), then the
 * {@link HandlerResultHandler} that supports their result. A rejection that none of them
 * handles reaches the server's exception handlers.
 */
final class RejectionDispatcher {

	private final List<DispatchExceptionHandler> exceptionHandlers;

	private final List<HandlerResultHandler> resultHandlers;

	RejectionDispatcher(List<DispatchExceptionHandler> exceptionHandlers, List<HandlerResultHandler> resultHandlers) {
		this.exceptionHandlers = exceptionHandlers;
		this.resultHandlers = resultHandlers;
	}

	Mono<Void> dispatch(ServerWebExchange exchange, Throwable rejection) {
		Mono<HandlerResult> result = Mono.error(rejection);
		for (DispatchExceptionHandler exceptionHandler : this.exceptionHandlers) {
			result = result.onErrorResume((failure) -> exceptionHandler.handleError(exchange, failure));
		}
		return result.flatMap((handled) -> {
			for (HandlerResultHandler resultHandler : this.resultHandlers) {
				if (resultHandler.supports(handled)) {
					return resultHandler.handleResult(exchange, handled);
				}
			}
			return Mono.error(new IllegalStateException("No HandlerResultHandler for " + handled.getReturnValue()));
		});
	}

}
