package dev.lockstarter.sample.user;

/**
 * Thrown when a guarded form submission lacks a valid form token. Answered with
 * {@code 400 Bad Request} by {@link UserProblemHandler}.
 *
 * @since 0.1.0
 */
public class InvalidFormTokenException extends RuntimeException {

	/**
	 * Create a new exception.
	 */
	public InvalidFormTokenException() {
		super("'formToken' must have 16 to 64 characters among A-Z, a-z, 0-9, '_' and '-'");
	}

}
