package dev.lockstarter.server;

import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Writes the lock server's own refusals as RFC 9457 problem responses, from the
 * controller ({@link LockRequestException}) and from the API key filter, which runs
 * before Spring MVC and writes the same JSON itself. Store failures (503) and framework
 * errors (404, 405, 415) come from the starter's and Spring MVC's problem handling.
 *
 * @since 0.1.0
 */
@RestControllerAdvice
class ProblemResponses {

	private static final Log logger = LogFactory.getLog(ProblemResponses.class);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@ExceptionHandler
	ResponseEntity<ProblemDetail> handle(LockRequestException ex, HttpServletRequest request) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(ex.status(), ex.getMessage());
		problem.setType(ex.type());
		problem.setTitle(ex.title());
		problem.setInstance(URI.create(request.getRequestURI()));
		ex.properties().forEach(problem::setProperty);
		ResponseEntity.BodyBuilder response = ResponseEntity.status(ex.status())
			.contentType(MediaType.APPLICATION_PROBLEM_JSON);
		if (ex.retryAfterSeconds() > 0) {
			response.header(HttpHeaders.RETRY_AFTER, Long.toString(ex.retryAfterSeconds()));
		}
		return response.body(problem);
	}

	/**
	 * Anything else is a fault of the server: a 500 problem that tells nothing of it (the
	 * log has the exception). Lock store failures never get here: the starter's handler,
	 * ordered first, answers them with 503.
	 * @param ex the exception
	 * @param request the request
	 * @return the problem response
	 */
	@ExceptionHandler
	ResponseEntity<ProblemDetail> handle(Exception ex, HttpServletRequest request) {
		if (ex instanceof ErrorResponse error) {
			return ResponseEntity.status(error.getStatusCode())
				.headers(error.getHeaders())
				.contentType(MediaType.APPLICATION_PROBLEM_JSON)
				.body(error.getBody());
		}
		logger.error("Request " + request.getMethod() + " " + request.getRequestURI() + " failed", ex);
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR,
				"The server failed to handle the request");
		problem.setInstance(URI.create(request.getRequestURI()));
		return ResponseEntity.internalServerError().contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
	}

	/**
	 * Write a refusal outside Spring MVC, as {@link #handle} would.
	 * @param ex the refusal
	 * @param request the request
	 * @param response the response
	 * @throws IOException if writing fails
	 */
	static void write(LockRequestException ex, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("type", ex.type().toString());
		body.put("title", ex.title());
		body.put("status", ex.status().value());
		body.put("detail", ex.getMessage());
		body.put("instance", request.getRequestURI());
		body.putAll(ex.properties());
		response.setStatus(ex.status().value());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		if (ex.retryAfterSeconds() > 0) {
			response.setHeader(HttpHeaders.RETRY_AFTER, Long.toString(ex.retryAfterSeconds()));
		}
		response.getOutputStream().write(JSON.writeValueAsBytes(body));
	}

}
