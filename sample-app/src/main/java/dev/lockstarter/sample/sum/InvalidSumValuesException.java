package dev.lockstarter.sample.sum;

/**
 * Thrown when the values to sum are missing, blank or not integers. Answered with
 * {@code 400 Bad Request} by {@link SumController}.
 *
 * @since 0.1.0
 */
public class InvalidSumValuesException extends RuntimeException {

	/**
	 * Create a new exception.
	 * @param message what is wrong with the values
	 */
	public InvalidSumValuesException(String message) {
		super(message);
	}

}
