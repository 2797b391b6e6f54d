package dev.lockstarter.docs.idempotency;

import reactor.core.publisher.Mono;

/**
 * Makes payments without blocking.
 */
public interface ReactivePayments {

	Mono<Payment> pay(long amount);

}
