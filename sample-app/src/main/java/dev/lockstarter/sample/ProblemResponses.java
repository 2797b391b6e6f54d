package dev.lockstarter.sample;

import java.net.URI;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * Builds the sample API's own RFC 9457 {@code application/problem+json} responses.
 *
 * @since 0.1.0
 */
public final class ProblemResponses {

	private ProblemResponses() {
	}

	/**
	 * Return a problem.
	 * @param status the status
	 * @param type the problem type
	 * @param title the short summary
	 * @param detail the explanation of this occurrence
	 * @return the problem
	 */
	public static ProblemDetail problem(HttpStatus status, URI type, String title, @Nullable String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setType(type);
		problem.setTitle(title);
		return problem;
	}

	/**
	 * Return the response of a problem.
	 * @param problem the problem
	 * @return the response
	 */
	public static ResponseEntity<ProblemDetail> respond(ProblemDetail problem) {
		return ResponseEntity.status(problem.getStatus()).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
	}

}
