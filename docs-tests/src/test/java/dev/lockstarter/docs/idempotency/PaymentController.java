package dev.lockstarter.docs.idempotency;

import java.net.URI;

import dev.lockstarter.idempotency.IdempotentRequest;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring MVC payment endpoint that a client may retry.
 */
@RestController
public class PaymentController {

	private final Payments payments;

	public PaymentController(Payments payments) {
		this.payments = payments;
	}

	// tag::pay[]
	@PostMapping("/api/payments")
	@IdempotentRequest // or (retention = "1h"), (required = false)
	public ResponseEntity<Payment> pay(@RequestBody PaymentRequest request) {
		Payment payment = this.payments.pay(request.amount());
		return ResponseEntity.created(URI.create("/api/payments/" + payment.paymentId())).body(payment);
	}
	// end::pay[]

}
