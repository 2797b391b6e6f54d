package dev.lockstarter.sample.user;

/**
 * Thrown when a registration lacks a user name or gives a blank one. Answered with
 * {@code 400 Bad Request} by {@link UserProblemHandler}.
 *
 * @since 0.1.0
 */
public class InvalidUserNameException extends RuntimeException {

	/**
	 * Create a new exception.
	 */
	public InvalidUserNameException() {
		super("'userName' must not be missing or blank");
	}

}
