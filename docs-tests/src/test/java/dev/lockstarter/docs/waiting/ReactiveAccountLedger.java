package dev.lockstarter.docs.waiting;

import reactor.core.publisher.Mono;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.interceptor.ReactiveExclusiveRequestContext;
import org.springframework.stereotype.Service;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Sends the fencing token of the current lock with a write, from a reactive method.
 */
@Service
public class ReactiveAccountLedger {

	private final WebClient ledger;

	public ReactiveAccountLedger(WebClient ledger) {
		this.ledger = ledger;
	}

	// tag::fencing-reactive[]
	@ExclusiveRequest(key = "#accountId")
	public Mono<Void> credit(String accountId, long amount) {
		return ReactiveExclusiveRequestContext.currentFencingToken()
			.single() // without a token: an error, not a skipped write
			.flatMap((fence) -> this.ledger.post()
				.uri("/accounts/{id}/credits", accountId)
				// the ledger rejects a token lower than one it has seen
				.header("Fencing-Token", Long.toString(fence))
				.bodyValue(amount)
				.retrieve()
				.toBodilessEntity())
			.then();
	}
	// end::fencing-reactive[]

}
