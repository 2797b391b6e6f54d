package dev.lockstarter.docs.idempotency;

import java.net.URI;

import reactor.core.publisher.Mono;

import dev.lockstarter.idempotency.IdempotentRequest;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring WebFlux payment endpoint that a client may retry.
 */
@RestController
public class ReactivePaymentController {

	private final ReactivePayments payments;

	public ReactivePaymentController(ReactivePayments payments) {
		this.payments = payments;
	}

	// tag::pay[]
	@PostMapping("/api/payments")
	@IdempotentRequest
	public Mono<ResponseEntity<Payment>> pay(@RequestBody PaymentRequest request) {
		return this.payments.pay(request.amount())
			.map((payment) -> ResponseEntity.created(URI.create("/api/payments/" + payment.paymentId())).body(payment));
	}
	// end::pay[]

}
