package dev.lockstarter.sample.payment;

/**
 * Thrown when a payment request has no amount or one that is not positive. Answered with
 * {@code 400 Bad Request} by {@link PaymentProblemHandler}.
 *
 * @since 0.1.0
 */
public class InvalidPaymentException extends RuntimeException {

	static final String RULE = "'amount' must be a positive whole number of minor units, "
			+ "written as a JSON number such as 1250";

	/**
	 * Create a new exception.
	 */
	public InvalidPaymentException() {
		super(RULE);
	}

}
