package dev.lockstarter.idempotency;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;

/**
 * Finds the {@link IdempotentRequest} handler methods of the application's
 * {@link RequestMappingHandlerMapping}s once, and the idempotent handler of each exchange
 * as the dispatcher will find it.
 */
final class IdempotentHandlerLookup {

	private final List<RequestMappingHandlerMapping> handlerMappings;

	private final List<HandlerMethod> handlers;

	private final Set<Method> methods;

	IdempotentHandlerLookup(List<RequestMappingHandlerMapping> handlerMappings,
			IdempotentRequestAttributeSource attributeSource) {
		this.handlerMappings = handlerMappings;
		this.handlers = handlerMappings.stream()
			.flatMap((mapping) -> mapping.getHandlerMethods().values().stream())
			.filter((handler) -> attributeSource.getAttribute(handler.getMethod()) != null)
			.distinct()
			.toList();
		this.methods = Set.copyOf(this.handlers.stream().map(HandlerMethod::getMethod).toList());
	}

	/**
	 * Return the annotated handler methods.
	 * @return the handler methods, empty if none is annotated
	 */
	List<HandlerMethod> handlers() {
		return this.handlers;
	}

	/**
	 * Return whether no handler method is annotated, so that no request is idempotent.
	 * @return whether there is nothing to look up
	 */
	boolean isEmpty() {
		return this.methods.isEmpty();
	}

	/**
	 * Find the handler of an exchange, if it is an annotated one.
	 * @param exchange the exchange
	 * @return the annotated handler, or empty if the handler is not annotated or there is
	 * none
	 */
	Mono<Optional<HandlerMethod>> find(ServerWebExchange exchange) {
		return Flux.fromIterable(this.handlerMappings)
			.concatMap((mapping) -> mapping.getHandlerInternal(exchange))
			.next()
			.filter((handler) -> this.methods.contains(handler.getMethod()))
			.map(Optional::of)
			// No handler, or none that matches (405, 415, ...): the dispatcher answers
			.onErrorResume((ex) -> Mono.just(Optional.empty()))
			.defaultIfEmpty(Optional.empty());
	}

}
