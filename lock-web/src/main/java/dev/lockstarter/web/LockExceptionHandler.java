package dev.lockstarter.web;

import java.net.URI;
import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.InvalidLockKeyException;
import dev.lockstarter.core.LeaseLostException;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockTtlTooShortException;
import dev.lockstarter.core.SharedFailureException;
import dev.lockstarter.idempotency.IdempotencyKeyReusedException;
import dev.lockstarter.idempotency.IdempotentRequestInProgressException;
import dev.lockstarter.idempotency.IdempotentRequestTooLargeException;
import dev.lockstarter.idempotency.InvalidIdempotencyKeyException;
import dev.lockstarter.store.LockStoreException;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.util.Assert;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Turns lock exceptions into RFC 9457 {@code application/problem+json} responses:
 * <ul>
 * <li>{@link LockConflictException}: the conflict status (409 by default, or the method's
 * {@code conflictStatus}), with a {@code Retry-After} header holding
 * {@link LockConflictException#getRetryAfter()} in whole seconds, rounded up, at least 1:
 * the typical hold time of the lock's name observed by this instance, never more than the
 * holder's remaining time-to-live;</li>
 * <li>{@link InvalidLockKeyException}: 400;</li>
 * <li>{@link LockStoreException}: 503, with {@code Retry-After: 1};</li>
 * <li>{@link LockTtlTooShortException} (a grant confirmed after the lock's time-to-live):
 * 503 of its own type, with {@code Retry-After: 1};</li>
 * <li>{@link LeaseLostException} (a method cancelled because its lease was lost while it
 * ran): 503 by default, or 409 ({@link #setLeaseLostStatus(int)}), with
 * {@code Retry-After: 1};</li>
 * <li>the {@link dev.lockstarter.idempotency.IdempotentRequest} rejections: 400 for a
 * missing or malformed {@code Idempotency-Key}, 409 with {@code Retry-After} while a
 * request with the same key is in progress, 422 for a key reused with a different
 * payload, 413 for a body over the limit;</li>
 * <li>{@link SharedFailureException}: the status of the holder's exception, 500 if it has
 * none; the holder's message is shown only for a 4xx status.</li>
 * </ul>
 * Bodies name neither the owner token nor the store key, and never include a stack trace.
 * <p>
 * The handler uses only {@code spring-web} types, so the same advice serves Spring MVC
 * and Spring WebFlux controllers: in WebFlux, a reactive {@code @ExclusiveRequest}
 * method's error signal reaches it like a thrown exception, and the responses are the
 * same on both stacks.
 * <p>
 * The advice is ordered ({@link #DEFAULT_ORDER}) ahead of application advice that has no
 * explicit order, so an application's catch-all
 * {@code @ExceptionHandler(Exception.class)} does not turn lock errors into 500s. Spring
 * MVC consults advice beans in order and uses the first one that can handle the
 * exception, so an application that wants its own responses for these exceptions declares
 * a subclass of this class as a bean (the auto-configured one then backs off), or puts
 * its handlers in advice with a higher precedence.
 *
 * @since 0.1.0
 */
@ControllerAdvice
public class LockExceptionHandler implements Ordered {

	/** The default order: {@code Ordered.HIGHEST_PRECEDENCE + 1000}. */
	public static final int DEFAULT_ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

	private static final Log logger = LogFactory.getLog(LockExceptionHandler.class);

	private final HttpStatusCode defaultConflictStatus;

	private int order = DEFAULT_ORDER;

	private HttpStatusCode leaseLostStatus = HttpStatus.SERVICE_UNAVAILABLE;

	/**
	 * Create a handler that answers conflicts with {@code 409 Conflict} by default.
	 */
	public LockExceptionHandler() {
		this(HttpStatus.CONFLICT.value());
	}

	/**
	 * Create a handler.
	 * @param defaultConflictStatus the status of a conflict whose method sets none, 4xx
	 */
	public LockExceptionHandler(int defaultConflictStatus) {
		Assert.isTrue(defaultConflictStatus >= 400 && defaultConflictStatus <= 499,
				() -> "'defaultConflictStatus' must be a 4xx status, was " + defaultConflictStatus);
		this.defaultConflictStatus = HttpStatusCode.valueOf(defaultConflictStatus);
	}

	/**
	 * Set the order of this advice among the application's {@code @ControllerAdvice}
	 * beans.
	 * @param order the order, {@link #DEFAULT_ORDER} by default
	 */
	public void setOrder(int order) {
		this.order = order;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	/**
	 * Set the status of a request whose method was cancelled because its lease was lost
	 * while it ran: 503 (the default) says the service could not complete it now, 409
	 * says it collided with another holder of the same lock.
	 * @param leaseLostStatus 503 or 409
	 * @since 0.1.0
	 */
	public void setLeaseLostStatus(int leaseLostStatus) {
		Assert.isTrue(leaseLostStatus == 503 || leaseLostStatus == 409,
				() -> "'leaseLostStatus' must be 503 or 409, was " + leaseLostStatus);
		this.leaseLostStatus = HttpStatusCode.valueOf(leaseLostStatus);
	}

	/**
	 * Answer any exception that this handler knows, through the same handler methods (so
	 * that a subclass's overrides apply), for callers that are not exception handler
	 * methods, such as {@link LockProblemWebExceptionHandler} for WebFlux functional
	 * endpoints.
	 * @param ex the exception
	 * @return the problem response, or {@code null} if the exception is not one of those
	 * listed above
	 */
	public @Nullable ResponseEntity<ProblemDetail> handleException(Throwable ex) {
		if (ex instanceof LockConflictException conflict) {
			return handleLockConflict(conflict);
		}
		if (ex instanceof InvalidLockKeyException invalidKey) {
			return handleInvalidLockKey(invalidKey);
		}
		if (ex instanceof LockStoreException storeFailure) {
			return handleLockStoreFailure(storeFailure);
		}
		if (ex instanceof LockTtlTooShortException ttlTooShort) {
			return handleLockTtlTooShort(ttlTooShort);
		}
		if (ex instanceof LeaseLostException leaseLost) {
			return handleLeaseLost(leaseLost);
		}
		if (ex instanceof InvalidIdempotencyKeyException invalidIdempotencyKey) {
			return handleInvalidIdempotencyKey(invalidIdempotencyKey);
		}
		if (ex instanceof IdempotentRequestInProgressException inProgress) {
			return handleIdempotentRequestInProgress(inProgress);
		}
		if (ex instanceof IdempotencyKeyReusedException reused) {
			return handleIdempotencyKeyReused(reused);
		}
		if (ex instanceof IdempotentRequestTooLargeException tooLarge) {
			return handleIdempotentRequestTooLarge(tooLarge);
		}
		if (ex instanceof SharedFailureException sharedFailure) {
			return handleSharedFailure(sharedFailure);
		}
		return null;
	}

	/**
	 * Answer a lock conflict.
	 * @param ex the conflict
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleLockConflict(LockConflictException ex) {
		HttpStatusCode status = (ex.getConflictStatus() != LockConflictException.DEFAULT_STATUS)
				? HttpStatusCode.valueOf(ex.getConflictStatus()) : this.defaultConflictStatus;
		long retryAfter = retryAfterSeconds(ex.getRetryAfter());
		ProblemDetail problem = problem(status, LockProblemTypes.LOCK_CONFLICT, "Request already in progress",
				"Another request with the same key is in progress. Retry after " + retryAfter + " second"
						+ ((retryAfter == 1) ? "" : "s") + ".");
		return respond(status, problem, retryAfter);
	}

	/**
	 * Answer a request whose lock key cannot be built.
	 * @param ex the failure
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleInvalidLockKey(InvalidLockKeyException ex) {
		if (logger.isDebugEnabled()) {
			logger.debug("Rejected request with an invalid lock key", ex);
		}
		HttpStatus status = HttpStatus.BAD_REQUEST;
		ProblemDetail problem = problem(status, LockProblemTypes.INVALID_LOCK_KEY, "Invalid lock key",
				"The request lacks a value that identifies what it locks.");
		return respond(status, problem, 0);
	}

	/**
	 * Answer a request that could not be locked because the lock store failed.
	 * @param ex the failure
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleLockStoreFailure(LockStoreException ex) {
		logger.warn("Lock store unavailable; request rejected without running", ex);
		HttpStatus status = HttpStatus.SERVICE_UNAVAILABLE;
		ProblemDetail problem = problem(status, LockProblemTypes.LOCK_STORE_UNAVAILABLE, "Lock store unavailable",
				"The request could not be locked and was not processed. Retry later.");
		return respond(status, problem, 1);
	}

	/**
	 * Answer a request whose lock the store granted only after the lock's time-to-live
	 * had run out: the store answered, so it is not reported as unavailable, and the log
	 * names the time-to-live and the time the store took.
	 * @param ex the failure
	 * @return the problem response
	 * @since 0.1.0
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleLockTtlTooShort(LockTtlTooShortException ex) {
		logger.warn("Request rejected without running: " + ex.getMessage());
		HttpStatus status = HttpStatus.SERVICE_UNAVAILABLE;
		ProblemDetail problem = problem(status, LockProblemTypes.LOCK_TTL_TOO_SHORT, "Lock time-to-live too short",
				"The request's lock expired before the lock store confirmed it, and the request was not processed. "
						+ "Retry later.");
		return respond(status, problem, 1);
	}

	/**
	 * Answer a request whose method was cancelled because its lease was lost while it
	 * ran.
	 * @param ex the failure
	 * @return the problem response
	 * @since 0.1.0
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleLeaseLost(LeaseLostException ex) {
		logger.warn("Request cancelled: " + ex.getMessage());
		ProblemDetail problem = problem(this.leaseLostStatus, LockProblemTypes.LEASE_LOST, "Lock lost",
				"The request's lock was lost while it ran, and its processing was stopped; "
						+ "it may have been partly done. Retry later.");
		return respond(this.leaseLostStatus, problem, 1);
	}

	/**
	 * Answer a request to an idempotent handler whose {@code Idempotency-Key} is missing
	 * or malformed.
	 * @param ex the failure
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleInvalidIdempotencyKey(InvalidIdempotencyKeyException ex) {
		HttpStatus status = HttpStatus.BAD_REQUEST;
		ProblemDetail problem = problem(status, LockProblemTypes.INVALID_IDEMPOTENCY_KEY,
				ex.isMissing() ? "Idempotency key missing" : "Invalid idempotency key", ex.getMessage());
		return respond(status, problem, 0);
	}

	/**
	 * Answer a request whose idempotency key belongs to a request still in progress.
	 * @param ex the conflict
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleIdempotentRequestInProgress(IdempotentRequestInProgressException ex) {
		HttpStatus status = HttpStatus.CONFLICT;
		long retryAfter = retryAfterSeconds(ex.getRetryAfter());
		ProblemDetail problem = problem(status, LockProblemTypes.IDEMPOTENT_REQUEST_IN_PROGRESS,
				"Request already in progress", "A request with the same idempotency key is in progress. Retry after "
						+ retryAfter + " second" + ((retryAfter == 1) ? "" : "s") + " to receive its response.");
		return respond(status, problem, retryAfter);
	}

	/**
	 * Answer a request that reuses an idempotency key with a different payload.
	 * @param ex the failure
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleIdempotencyKeyReused(IdempotencyKeyReusedException ex) {
		HttpStatus status = HttpStatus.UNPROCESSABLE_CONTENT;
		ProblemDetail problem = problem(status, LockProblemTypes.IDEMPOTENCY_KEY_REUSED, "Idempotency key reused",
				"The idempotency key was already used for a request with a different payload. "
						+ "Use a new key for a new request.");
		return respond(status, problem, 0);
	}

	/**
	 * Answer a request to an idempotent handler whose body is over the limit.
	 * @param ex the failure
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleIdempotentRequestTooLarge(IdempotentRequestTooLargeException ex) {
		HttpStatus status = HttpStatus.CONTENT_TOO_LARGE;
		ProblemDetail problem = problem(status, LockProblemTypes.IDEMPOTENT_REQUEST_TOO_LARGE, "Request too large",
				"The body of an idempotent request must not exceed " + ex.getMaxBodySize() + " bytes.");
		return respond(status, problem, 0);
	}

	/**
	 * Answer a request that waited for another request's result (single-flight) when that
	 * request failed.
	 * @param ex the failure
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleSharedFailure(SharedFailureException ex) {
		HttpStatusCode status = (ex.getStatus() >= 400 && ex.getStatus() <= 599)
				? HttpStatusCode.valueOf(ex.getStatus()) : HttpStatus.INTERNAL_SERVER_ERROR;
		String message = ex.getFailureMessage();
		String detail = (status.is4xxClientError() && message != null) ? message
				: "The request with the same key that this request waited for failed.";
		if (status.is5xxServerError()) {
			logger
				.warn("Request failed with the failure of the request whose result it waited for: " + ex.getMessage());
		}
		String title = (status instanceof HttpStatus known) ? known.getReasonPhrase() : "Request failed";
		return respond(status, problem(status, LockProblemTypes.SHARED_FAILURE, title, detail), 0);
	}

	private static ProblemDetail problem(HttpStatusCode status, URI type, String title, @Nullable String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setType(type);
		problem.setTitle(title);
		return problem;
	}

	private static ResponseEntity<ProblemDetail> respond(HttpStatusCode status, ProblemDetail problem,
			long retryAfterSeconds) {
		ResponseEntity.BodyBuilder response = ResponseEntity.status(status)
			.contentType(MediaType.APPLICATION_PROBLEM_JSON);
		if (retryAfterSeconds > 0) {
			response.header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
		}
		return response.body(problem);
	}

	static long retryAfterSeconds(Duration remaining) {
		long millis = Math.max(0, remaining.toMillis());
		return Math.max(1, (millis + 999) / 1000);
	}

}
