package dev.lockstarter.sample.user;

import java.net.URI;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static dev.lockstarter.sample.ProblemResponses.problem;
import static dev.lockstarter.sample.ProblemResponses.respond;

/**
 * Answers the user API's own errors with RFC 9457 {@code application/problem+json}
 * responses. Lock conflicts are not handled here: the starter's
 * {@link dev.lockstarter.web.LockExceptionHandler} answers them.
 *
 * @since 0.1.0
 */
@RestControllerAdvice(assignableTypes = { UserController.class, UnsafeUserController.class,
		FormSubmissionController.class, RawRedisLockUserController.class })
public class UserProblemHandler {

	/** Type of the problem of a registration whose name is taken. */
	public static final URI USER_ALREADY_REGISTERED = URI
		.create("urn:lockstarter:sample:problem:user-already-registered");

	/** Type of the problem of a registration without a user name. */
	public static final URI INVALID_USER_NAME = URI.create("urn:lockstarter:sample:problem:invalid-user-name");

	/** Type of the problem of a guarded form submission without a valid form token. */
	public static final URI INVALID_FORM_TOKEN = URI.create("urn:lockstarter:sample:problem:invalid-form-token");

	/** Type of the problem of a look-up of an unknown user id. */
	public static final URI USER_NOT_FOUND = URI.create("urn:lockstarter:sample:problem:user-not-found");

	/**
	 * Answer a registration whose name is taken.
	 * @param ex the failure
	 * @return a {@code 422} problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleUserAlreadyRegistered(UserAlreadyRegisteredException ex) {
		ProblemDetail problem = problem(HttpStatus.UNPROCESSABLE_CONTENT, USER_ALREADY_REGISTERED,
				"User already registered", ex.getMessage() + ".");
		problem.setProperty("userName", ex.getUserName());
		return respond(problem);
	}

	/**
	 * Answer a registration without a user name.
	 * @param ex the failure
	 * @return a {@code 400} problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleInvalidUserName(InvalidUserNameException ex) {
		return respond(problem(HttpStatus.BAD_REQUEST, INVALID_USER_NAME, "Invalid user name", ex.getMessage() + "."));
	}

	/**
	 * Answer a guarded form submission without a valid form token.
	 * @param ex the failure
	 * @return a {@code 400} problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleInvalidFormToken(InvalidFormTokenException ex) {
		return respond(
				problem(HttpStatus.BAD_REQUEST, INVALID_FORM_TOKEN, "Invalid form token", ex.getMessage() + "."));
	}

	/**
	 * Answer a look-up of an unknown user id.
	 * @param ex the failure
	 * @return a {@code 404} problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleUserNotFound(UserNotFoundException ex) {
		return respond(problem(HttpStatus.NOT_FOUND, USER_NOT_FOUND, "User not found", ex.getMessage() + "."));
	}

}
