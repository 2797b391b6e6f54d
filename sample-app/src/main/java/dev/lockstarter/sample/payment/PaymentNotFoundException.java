package dev.lockstarter.sample.payment;

/**
 * Thrown when a payment id is unknown. Answered with {@code 404 Not Found} by
 * {@link PaymentProblemHandler}.
 *
 * @since 0.1.0
 */
public class PaymentNotFoundException extends RuntimeException {

	/**
	 * Create a new exception.
	 * @param paymentId the unknown id
	 */
	public PaymentNotFoundException(String paymentId) {
		super("No payment with id '" + paymentId + "'");
	}

}
