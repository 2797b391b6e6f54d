package dev.lockstarter.server;

import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
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
 * Writes the lock server's own refusals ({@link LockRequestException}) as RFC 9457
 * problem responses, for the API key filter and {@link LockServlet}, which run outside
 * Spring MVC. As advice, it answers the paths Spring MVC serves (the OpenAPI document,
 * the probes, unknown paths) with problems too. Store failures (503) come from the
 * starter's problem handling.
 *
 * @since 0.1.0
 */
@RestControllerAdvice
class ProblemResponses {

	private static final Log logger = LogFactory.getLog(ProblemResponses.class);

	private static final JsonMapper JSON = JsonMapper.builder().build();

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
	 * The problem response to a refusal.
	 * @param ex the refusal
	 * @param request the request refused
	 * @return the problem response
	 */
	static ResponseEntity<ProblemDetail> problem(LockRequestException ex, HttpServletRequest request) {
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
	 * Write a refusal outside Spring MVC.
	 * @param ex the refusal
	 * @param request the request
	 * @param response the response
	 * @throws IOException if writing fails
	 */
	static void write(LockRequestException ex, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		write(problem(ex, request), response);
	}

	/**
	 * Write a problem response outside Spring MVC: its status, headers and the problem as
	 * {@code application/problem+json}, its properties beside the standard members.
	 * @param problem the problem response
	 * @param response the response
	 * @throws IOException if writing fails
	 */
	static void write(ResponseEntity<ProblemDetail> problem, HttpServletResponse response) throws IOException {
		response.setStatus(problem.getStatusCode().value());
		problem.getHeaders().forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		ProblemDetail detail = problem.getBody();
		if (detail == null) {
			return;
		}
		Map<String, @Nullable Object> body = new LinkedHashMap<>();
		// RFC 9457: a problem without a type is of type "about:blank"
		body.put("type", (detail.getType() != null) ? detail.getType().toString() : "about:blank");
		putIfPresent(body, "title", detail.getTitle());
		body.put("status", detail.getStatus());
		putIfPresent(body, "detail", detail.getDetail());
		putIfPresent(body, "instance", (detail.getInstance() != null) ? detail.getInstance().toString() : null);
		if (detail.getProperties() != null) {
			body.putAll(detail.getProperties());
		}
		response.getOutputStream().write(JSON.writeValueAsBytes(body));
	}

	private static void putIfPresent(Map<String, @Nullable Object> body, String name, @Nullable Object value) {
		if (value != null) {
			body.put(name, value);
		}
	}

}
