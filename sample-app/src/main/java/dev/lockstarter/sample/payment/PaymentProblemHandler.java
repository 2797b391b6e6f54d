package dev.lockstarter.sample.payment;

import java.net.URI;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static dev.lockstarter.sample.ProblemResponses.problem;
import static dev.lockstarter.sample.ProblemResponses.respond;

/**
 * Answers the payment API's own errors with RFC 9457 {@code application/problem+json}
 * responses. Idempotency-Key errors are answered by the starter's
 * {@link dev.lockstarter.web.LockExceptionHandler}. Ordered first, so that an unreadable
 * body is answered here rather than by Spring Boot's generic problem details.
 *
 * @since 0.1.0
 */
@RestControllerAdvice(assignableTypes = PaymentController.class)
@Order(Ordered.HIGHEST_PRECEDENCE)
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
	 * Answer a payment whose body cannot be read as a payment request: not JSON, or an
	 * {@code amount} that is a fraction ({@code 1.9}) or a string ({@code "100"}), which
	 * the application's JSON settings refuse instead of rounding or converting them.
	 * @param ex the failure
	 * @return a {@code 400} problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleUnreadablePayment(HttpMessageNotReadableException ex) {
		return respond(problem(HttpStatus.BAD_REQUEST, INVALID_PAYMENT, "Invalid payment",
				"The body must be a JSON object whose " + InvalidPaymentException.RULE + "."));
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
