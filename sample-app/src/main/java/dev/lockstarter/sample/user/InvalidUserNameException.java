package dev.lockstarter.sample.user;

/**
 * Thrown when a registration lacks a user name or gives one outside
 * {@link UserNames#RULE}. Answered with {@code 400 Bad Request} by
 * {@link UserProblemHandler}.
 *
 * @since 0.1.0
 */
public class InvalidUserNameException extends RuntimeException {

	/**
	 * Create a new exception.
	 * @param message what is wrong with the name, and what is allowed
	 */
	public InvalidUserNameException(String message) {
		super(message);
	}

}
