package dev.lockstarter.sample.user;

/**
 * Thrown when a registration names a user that is already registered. Answered with
 * {@code 422 Unprocessable Content} by {@link UserProblemHandler}.
 *
 * @since 0.1.0
 */
public class UserAlreadyRegisteredException extends RuntimeException {

	private final String userName;

	/**
	 * Create a new exception.
	 * @param userName the name that is already registered
	 */
	public UserAlreadyRegisteredException(String userName) {
		super("User '" + userName + "' is already registered");
		this.userName = userName;
	}

	/**
	 * Return the name that is already registered.
	 * @return the user name
	 */
	public String getUserName() {
		return this.userName;
	}

}
