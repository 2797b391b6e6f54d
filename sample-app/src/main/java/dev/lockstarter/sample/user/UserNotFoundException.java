package dev.lockstarter.sample.user;

/**
 * Thrown when no user has the requested id. Answered with {@code 404 Not Found} by
 * {@link UserProblemHandler}.
 *
 * @since 0.1.0
 */
public class UserNotFoundException extends RuntimeException {

	/**
	 * Create a new exception.
	 * @param userId the id that was not found
	 */
	public UserNotFoundException(String userId) {
		super("No user has id '" + userId + "'");
	}

}
