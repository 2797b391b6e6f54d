package dev.lockstarter.sample;

import java.net.URI;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers a failure of the sample's own data store (Redis with the {@code redis} profile)
 * the way the starter answers a failure of the lock store: {@code 503} with an RFC 9457
 * problem and {@code Retry-After: 1}, instead of a {@code 500}. A registration checks
 * whether its name is free before it takes the lock, so with Redis down it is this
 * handler, not the starter's, that answers it.
 *
 * @since 0.1.0
 */
@RestControllerAdvice
public class DataStoreProblemHandler {

	/** Type of the problem of a request whose data could not be read or written. */
	public static final URI DATA_STORE_UNAVAILABLE = URI
		.create("urn:lockstarter:sample:problem:data-store-unavailable");

	private static final Log logger = LogFactory.getLog(DataStoreProblemHandler.class);

	/**
	 * Answer a request whose data store could not be reached or did not answer in time.
	 * @param ex the failure
	 * @return a {@code 503} problem response
	 */
	@ExceptionHandler({ DataAccessResourceFailureException.class, TransientDataAccessException.class })
	public ResponseEntity<ProblemDetail> handleDataStoreFailure(RuntimeException ex) {
		logger.warn("Data store unavailable; request rejected", ex);
		ProblemDetail problem = ProblemResponses.problem(HttpStatus.SERVICE_UNAVAILABLE, DATA_STORE_UNAVAILABLE,
				"Data store unavailable",
				"The request could not read or write its data and was not processed. " + "Retry later.");
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, "1")
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.body(problem);
	}

}
