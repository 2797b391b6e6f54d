package dev.lockstarter.reactivesample.user

import dev.lockstarter.reactivesample.problem
import dev.lockstarter.reactivesample.toResponse
import org.springframework.http.HttpStatus
import org.springframework.http.ProblemDetail
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.ExceptionHandler
import org.springframework.web.bind.annotation.RestControllerAdvice
import java.net.URI

/**
 * Answers the user endpoints' failures with the Java sample's problem responses (same
 * statuses and problem types).
 */
@RestControllerAdvice(assignableTypes = [UserController::class, UnsafeUserController::class])
class UserProblemHandler {

	/**
	 * Answer a registration whose name is taken: `422`, with the name.
	 */
	@ExceptionHandler
	fun handleUserAlreadyRegistered(ex: UserAlreadyRegisteredException): ResponseEntity<ProblemDetail> =
		problem(HttpStatus.UNPROCESSABLE_CONTENT, USER_ALREADY_REGISTERED, "User already registered", "${ex.message}.")
			.apply { setProperty("userName", ex.userName) }
			.toResponse()

	/**
	 * Answer a registration without a valid user name: `400`.
	 */
	@ExceptionHandler
	fun handleInvalidUserName(ex: InvalidUserNameException): ResponseEntity<ProblemDetail> =
		problem(HttpStatus.BAD_REQUEST, INVALID_USER_NAME, "Invalid user name", "${ex.message}.").toResponse()

	/**
	 * Answer a look-up of an unknown user id: `404`.
	 */
	@ExceptionHandler
	fun handleUserNotFound(ex: UserNotFoundException): ResponseEntity<ProblemDetail> =
		problem(HttpStatus.NOT_FOUND, USER_NOT_FOUND, "User not found", "${ex.message}.").toResponse()

	companion object {

		/** Type of the problem of a registration whose name is taken. */
		val USER_ALREADY_REGISTERED: URI = URI.create("urn:lockstarter:sample:problem:user-already-registered")

		/** Type of the problem of a registration without a valid user name. */
		val INVALID_USER_NAME: URI = URI.create("urn:lockstarter:sample:problem:invalid-user-name")

		/** Type of the problem of a look-up of an unknown user id. */
		val USER_NOT_FOUND: URI = URI.create("urn:lockstarter:sample:problem:user-not-found")

	}

}
