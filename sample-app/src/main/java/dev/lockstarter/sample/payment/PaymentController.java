package dev.lockstarter.sample.payment;

import java.net.URI;
import java.util.List;

import dev.lockstarter.idempotency.IdempotentRequest;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * The payment API: payments taken once per {@code Idempotency-Key}, and look-ups.
 *
 * @since 0.1.0
 */
@RestController
@RequestMapping("/api/payments")
public class PaymentController {

	private final PaymentService payments;

	/**
	 * Create a new controller.
	 * @param payments the payment service
	 */
	public PaymentController(PaymentService payments) {
		this.payments = payments;
	}

	/**
	 * Take a payment. A retry with the same {@code Idempotency-Key} and body gets the
	 * first attempt's response (with {@code Idempotent-Replayed: true}) and takes no
	 * second payment.
	 * @param request the payment request
	 * @return {@code 201 Created} with the payment and its location
	 */
	@PostMapping
	@IdempotentRequest
	public ResponseEntity<Payment> pay(@RequestBody PaymentRequest request) {
		Long amount = request.amount();
		if (amount == null || amount <= 0) {
			throw new InvalidPaymentException();
		}
		Payment payment = this.payments.pay(amount);
		URI location = UriComponentsBuilder.fromPath("/api/payments/{paymentId}")
			.buildAndExpand(payment.paymentId())
			.toUri();
		return ResponseEntity.created(location).body(payment);
	}

	/**
	 * Return every payment taken, so that duplicates, if any, are visible.
	 * @return the payments
	 */
	@GetMapping
	public List<Payment> findAll() {
		return this.payments.findAll();
	}

	/**
	 * Find a payment by id.
	 * @param paymentId the id
	 * @return the payment
	 */
	@GetMapping("/{paymentId}")
	public Payment findById(@PathVariable String paymentId) {
		return this.payments.findById(paymentId);
	}

}
