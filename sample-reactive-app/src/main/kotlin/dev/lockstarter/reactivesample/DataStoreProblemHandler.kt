package dev.lockstarter.reactivesample

import org.apache.commons.logging.LogFactory
import org.springframework.dao.DataAccessResourceFailureException
import org.springframework.dao.TransientDataAccessException
import org.springframework.http.HttpHeaders
import org.springframework.http.HttpStatus
import org.springframework.http.MediaType
import org.springframework.http.ProblemDetail
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.ExceptionHandler
import org.springframework.web.bind.annotation.RestControllerAdvice
import java.net.URI

/**
 * Answers a request whose users could not be read or written (Redis down or too slow)
 * with `503` and `Retry-After`, as the Java sample does.
 */
@RestControllerAdvice
class DataStoreProblemHandler {

	/**
	 * Answer a request whose data store could not be reached or did not answer in time.
	 */
	@ExceptionHandler(DataAccessResourceFailureException::class, TransientDataAccessException::class)
	fun handleDataStoreFailure(ex: RuntimeException): ResponseEntity<ProblemDetail> {
		logger.warn("Data store unavailable; request rejected", ex)
		val problem = problem(HttpStatus.SERVICE_UNAVAILABLE, DATA_STORE_UNAVAILABLE, "Data store unavailable",
			"The request could not read or write its data and was not processed. Retry later.")
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, "1")
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.body(problem)
	}

	companion object {

		/** Type of the problem of a request whose data could not be read or written. */
		val DATA_STORE_UNAVAILABLE: URI = URI.create("urn:lockstarter:sample:problem:data-store-unavailable")

		private val logger = LogFactory.getLog(DataStoreProblemHandler::class.java)

	}

}
