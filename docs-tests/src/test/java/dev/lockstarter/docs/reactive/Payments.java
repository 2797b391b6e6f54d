package dev.lockstarter.docs.reactive;

import reactor.core.publisher.Mono;

/**
 * Charges orders without blocking.
 */
public interface Payments {

	Mono<Receipt> charge(String orderId);

}
