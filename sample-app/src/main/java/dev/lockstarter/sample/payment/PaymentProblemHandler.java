package dev.lockstarter.sample.payment;

import java.net.URI;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static dev.lockstarter.sample.ProblemResponses.problem;
import static dev.lockstarter.sample.ProblemResponses.respond;

/**
 * Answers the payment API's own errors with RFC 9457 {@code application/problem+json}
 * responses. Idempotency-Key errors are answered by the starter's
 * {@link dev.lockstarter.web.LockExceptionHandler}.
 *
 * @since 0.1.0
 */
@RestControllerAdvice(assignableTypes = PaymentController.class)
public class PaymentProblemHandler {

	/** Type of the problem of a payment without a positive amount. */
	public static final URI INVALID_PAYMENT = URI.create("urn:lockstarter:sample:problem:invalid-payment");

	/** Type of the problem of a look-up of an unknown payment id. */
	public static final URI PAYMENT_NOT_FOUND = URI.create("urn:lockstarter:sample:problem:payment-not-found");

	/**
	 * Answer a payment without a positive amount.
	 * @param ex the failure
	 * @return a {@code 400} problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleInvalidPayment(InvalidPaymentException ex) {
		return respond(problem(HttpStatus.BAD_REQUEST, INVALID_PAYMENT, "Invalid payment", ex.getMessage() + "."));
	}

	/**
	 * Answer a look-up of an unknown payment id.
	 * @param ex the failure
	 * @return a {@code 404} problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handlePaymentNotFound(PaymentNotFoundException ex) {
		return respond(problem(HttpStatus.NOT_FOUND, PAYMENT_NOT_FOUND, "Payment not found", ex.getMessage() + "."));
	}

}
