package dev.lockstarter.idempotency;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.idempotency.IdempotentRequestListener.Outcome;
import org.springframework.http.HttpHeaders;
import org.springframework.util.Assert;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.util.ContentCachingResponseWrapper;
import org.springframework.web.util.WebUtils;

/**
 * Runs {@link IdempotentRequest} handler methods at most once per idempotency key, and
 * replays the kept response to later requests with the same key. Needs
 * {@link IdempotencyFilter} in front of the dispatcher servlet, and a
 * {@link LockOperations} whose store {@linkplain LockOperations#supportsResults() keeps
 * results}.
 * <p>
 * For each request to an annotated handler:
 * <ol>
 * <li>The key is read from the {@code Idempotency-Key} header: a Structured Field String
 * ({@code "8e03978e-40d5"}, RFC 9651), or, leniently, the same characters without quotes.
 * A missing (when required), repeated, malformed or over-long key is rejected with an
 * {@link InvalidIdempotencyKeyException}.</li>
 * <li>The request's fingerprint is computed: SHA-256 over the method, path, query,
 * content type and body (buffered, so the handler still reads it; form parameters instead
 * of the body for form-encoded requests).</li>
 * <li>The lock {@code idempotency:anonymous:{key}}, or
 * {@code idempotency:user:{url-encoded principal name}:{key}}, is acquired without
 * waiting, with the configured time-to-live and renewal. Held by another request:
 * {@link IdempotentRequestInProgressException}.</li>
 * <li>A response kept for the key is replayed if the fingerprints match (status, kept
 * headers, body, plus {@code Idempotent-Replayed: true}); otherwise
 * {@link IdempotencyKeyReusedException}. Either way the lock is released and the handler
 * does not run.</li>
 * <li>With no kept response, the handler runs. When the request completes, its response
 * is kept with the lock's result for the retention period, unless it is a server error
 * (5xx, unless configured otherwise) or a status that asks to try again (408, 409, 425,
 * 429), or the handler ended with an unhandled exception. Then the lock is released.</li>
 * </ol>
 * {@code Set-Cookie} headers are never kept nor replayed.
 * <p>
 * <b>Transactional mode</b> ({@link #setTransactions(IdempotentRequestTransactions)}):
 * the kept response is written in the same database transaction as the handler's own
 * writes, so that a crash between the two leaves both or neither. See
 * {@link #setTransactions(IdempotentRequestTransactions)}.
 *
 * @since 0.1.0
 */
public class IdempotentRequestInterceptor implements HandlerInterceptor {

	/** The request header that carries the idempotency key. */
	public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

	/** The response header that marks a replayed response. */
	public static final String IDEMPOTENT_REPLAYED = "Idempotent-Replayed";

	/** The default response headers kept and replayed, besides {@code Content-Type}. */
	public static final List<String> DEFAULT_REPLAYED_HEADERS = IdempotencyPolicy.DEFAULT_REPLAYED_HEADERS;

	/** The default longest key, in characters. */
	public static final int DEFAULT_MAX_KEY_LENGTH = 255;

	/** The default largest request body, in bytes: 1 MiB. */
	public static final long DEFAULT_MAX_BODY_SIZE = 1024 * 1024;

	private static final String IN_FLIGHT_ATTRIBUTE = IdempotentRequestInterceptor.class.getName() + ".IN_FLIGHT";

	/**
	 * The problem (RFC 9457) sent when a transactional request's outcome could not be
	 * kept.
	 */
	private static final String NOT_KEPT_PROBLEM = """
			{"type":"about:blank","title":"Service Unavailable","status":503,\
			"detail":"The outcome of the request could not be stored with its changes, which were rolled back. \
			Retry with the same Idempotency-Key."}""";

	private static final Log logger = LogFactory.getLog(IdempotentRequestInterceptor.class);

	private final Supplier<LockOperations> locks;

	private final Supplier<LockOptions> lockOptions;

	private final IdempotentRequestAttributeSource attributeSource;

	private final IdempotencyPolicy policy = new IdempotencyPolicy();

	private @Nullable IdempotentRequestListener listener;

	private @Nullable IdempotentRequestTransactions transactions;

	/**
	 * Create a new interceptor.
	 * @param locks the lock operations, resolved on first use; their store must keep
	 * results
	 * @param lockOptions the options of the lock held while a request runs; waiting
	 * options are ignored: a request never waits for another with the same key
	 * @param retention how long a response is kept for replays when its method sets none
	 */
	public IdempotentRequestInterceptor(Supplier<LockOperations> locks, Supplier<LockOptions> lockOptions,
			Duration retention) {
		Assert.notNull(locks, "'locks' must not be null");
		Assert.notNull(lockOptions, "'lockOptions' must not be null");
		this.locks = locks;
		this.lockOptions = lockOptions;
		this.attributeSource = new IdempotentRequestAttributeSource(positive(retention, "retention"));
	}

	/**
	 * Set the response headers that are kept and replayed. {@code Content-Type} is always
	 * kept; {@code Set-Cookie} never is.
	 * @param replayedHeaders the header names, case-insensitive
	 */
	public void setReplayedHeaders(Collection<String> replayedHeaders) {
		this.policy.setReplayedHeaders(replayedHeaders);
	}

	/**
	 * Set whether server error responses (5xx) are kept and replayed. They are not by
	 * default, so that a retry runs the handler again.
	 * @param storeServerErrors {@code true} to keep server errors
	 */
	public void setStoreServerErrors(boolean storeServerErrors) {
		this.policy.setStoreServerErrors(storeServerErrors);
	}

	/**
	 * Set the longest accepted key.
	 * @param maxKeyLength the longest key, in characters, positive
	 */
	public void setMaxKeyLength(int maxKeyLength) {
		this.policy.setMaxKeyLength(maxKeyLength);
	}

	/**
	 * Set the largest accepted request body: larger bodies are rejected with an
	 * {@link IdempotentRequestTooLargeException}, since the body is buffered in memory.
	 * @param maxBodySize the largest body, in bytes, positive
	 */
	public void setMaxBodySize(long maxBodySize) {
		this.policy.setMaxBodySize(maxBodySize);
	}

	/**
	 * Parse and check the {@link IdempotentRequest} declaration of a handler method, as
	 * the interceptor will on the method's first request.
	 * @param handlerMethod the handler method
	 * @return {@code true} if the method is annotated
	 * @throws IllegalStateException if the declaration is invalid
	 */
	public boolean isIdempotent(HandlerMethod handlerMethod) {
		return getAttribute(handlerMethod) != null;
	}

	/**
	 * Return the parsed {@link IdempotentRequest} declaration of a handler method, with
	 * the configured retention when the declaration sets none.
	 * @param handlerMethod the handler method
	 * @return the declaration, or {@code null} if the method is not annotated
	 * @throws IllegalStateException if the declaration is invalid
	 */
	public @Nullable IdempotentRequestAttribute getAttribute(HandlerMethod handlerMethod) {
		Assert.notNull(handlerMethod, "'handlerMethod' must not be null");
		return this.attributeSource.getAttribute(handlerMethod.getMethod());
	}

	/**
	 * Return the options of the lock held while an idempotent request runs: the
	 * configured ones, named {@code "idempotency"}, without waiting, since a request
	 * never waits for another with the same key.
	 * @return the lock options
	 */
	public LockOptions getLockOptions() {
		return IdempotencyPolicy.lockOptions(this.lockOptions.get());
	}

	/**
	 * Set the listener told how each idempotent request ended.
	 * @param listener the listener, or {@code null} for none
	 */
	public void setListener(@Nullable IdempotentRequestListener listener) {
		this.listener = listener;
	}

	/**
	 * Run each idempotent request whose handler runs (no kept response) in a transaction,
	 * and keep its response in that same transaction, right before the commit. Needs a
	 * lock store that writes results on the connection of the transaction active on the
	 * request thread (the JDBC store with {@code setJoinTransactionForResults(true)}), on
	 * the database of the given transaction manager.
	 * <ul>
	 * <li>The transaction ({@code PROPAGATION_REQUIRED}) begins in {@code preHandle},
	 * once the lock is held and no response is kept, bound to the request thread: the
	 * handler's {@code @Transactional} services join it.</li>
	 * <li>When the request completes with a response that is to be kept, the response is
	 * written in the transaction, which then commits; the lock is released after the
	 * commit. A crash before the commit leaves neither the handler's writes nor the kept
	 * response; after it, both, so a retry replays the response.</li>
	 * <li>A response that is not kept (a server error, a status that asks to try again,
	 * an unhandled exception) rolls the transaction back, <em>with the handler's
	 * writes</em>.</li>
	 * <li>A transaction marked rollback-only (a {@code @Transactional} participant failed
	 * and the handler answered anyway) is rolled back. A client error (4xx) is then kept
	 * outside the transaction, since nothing was done; any other response is replaced by
	 * the {@code 503} below.</li>
	 * <li>If the response cannot be kept (the lock expired, the store failed) or the
	 * commit fails, the transaction is rolled back and the response, still buffered, is
	 * replaced by a {@code 503} problem response with {@code Retry-After}. A commit whose
	 * answer was lost may still have been applied, with the kept response: a retry with
	 * the same key then replays it; otherwise it runs the request again.</li>
	 * </ul>
	 * Not covered: anything outside the database, such as a call to a payment provider
	 * made by the handler, is not rolled back. Asynchronous handlers (a {@code Callable},
	 * {@code DeferredResult}, ...), which would run outside the request thread's
	 * transaction, are rejected for every {@link IdempotentRequest} when it is parsed, so
	 * in this mode every handler runs on the request thread, inside the transaction. The
	 * transaction holds a database connection from {@code preHandle} to
	 * {@code afterCompletion}, for the whole request.
	 * @param transactions the transactions, or {@code null} to keep responses after the
	 * handler's own transactions, in the lock store (the default)
	 */
	public void setTransactions(@Nullable IdempotentRequestTransactions transactions) {
		this.transactions = transactions;
	}

	/**
	 * Return whether requests run in transactions that also keep their responses.
	 * @return whether the transactional mode is on
	 * @see #setTransactions(IdempotentRequestTransactions)
	 */
	public boolean isTransactional() {
		return this.transactions != null;
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
			throws IOException {
		if (!(handler instanceof HandlerMethod handlerMethod)
				|| request.getDispatcherType() != DispatcherType.REQUEST) {
			return true;
		}
		IdempotentRequestAttribute attribute = this.attributeSource.getAttribute(handlerMethod.getMethod());
		if (attribute == null) {
			return true;
		}
		IdempotentRequestListener listener = this.listener;
		if (listener == null) {
			return handle(request, response, attribute);
		}
		Outcome outcome = null;
		try {
			boolean proceed = handle(request, response, attribute);
			outcome = proceed ? ((request.getAttribute(IN_FLIGHT_ATTRIBUTE) != null) ? Outcome.EXECUTED : null)
					: Outcome.REPLAYED;
			return proceed;
		}
		catch (RuntimeException ex) {
			outcome = IdempotencyPolicy.outcomeOf(ex);
			throw ex;
		}
		finally {
			if (outcome != null) {
				listener.requestHandled(
						IdempotencyPolicy.handlerName(handlerMethod.getBeanType(), handlerMethod.getMethod().getName()),
						outcome);
			}
		}
	}

	private boolean handle(HttpServletRequest request, HttpServletResponse response,
			IdempotentRequestAttribute attribute) throws IOException {
		String key = key(request);
		if (key == null) {
			if (attribute.required()) {
				throw IdempotencyPolicy.missingKey();
			}
			return true;
		}
		BufferedBodyRequest buffered = WebUtils.getNativeRequest(request, BufferedBodyRequest.class);
		ContentCachingResponseWrapper capturing = WebUtils.getNativeResponse(response,
				ContentCachingResponseWrapper.class);
		if (buffered == null || capturing == null) {
			throw new IllegalStateException("@IdempotentRequest needs the " + IdempotencyFilter.class.getName()
					+ " servlet filter in front of the dispatcher servlet");
		}
		byte[] fingerprint = RequestFingerprint.of(request, buffered, this.policy.maxBodySize());
		String lockKey = lockKey(request.getUserPrincipal(), key);
		LockOperations locks = this.locks.get();
		LockAttempt attempt = locks.tryAcquire(lockKey, getLockOptions());
		if (!attempt.isAcquired()) {
			throw new IdempotentRequestInProgressException(attempt.retryAfter());
		}
		Lease lease = attempt.lease();
		Optional<byte[]> kept;
		try {
			kept = locks.findResult(lockKey);
		}
		catch (RuntimeException ex) {
			lease.close();
			throw ex;
		}
		if (kept.isEmpty()) {
			IdempotentRequestTransactions.@Nullable Transaction transaction = null;
			if (this.transactions != null) {
				try {
					transaction = this.transactions.begin();
				}
				catch (RuntimeException ex) {
					lease.close();
					throw ex;
				}
			}
			request.setAttribute(IN_FLIGHT_ATTRIBUTE,
					new InFlight(lease, fingerprint, attribute.retention(), transaction));
			return true;
		}
		lease.close();
		StoredResponse stored = StoredResponse.fromBytes(kept.get());
		if (!stored.matches(fingerprint)) {
			throw new IdempotencyKeyReusedException();
		}
		replay(stored, response);
		return false;
	}

	@Override
	public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
			@Nullable Exception ex) {
		if (!(request.getAttribute(IN_FLIGHT_ATTRIBUTE) instanceof InFlight inFlight)) {
			return;
		}
		request.removeAttribute(IN_FLIGHT_ATTRIBUTE);
		if (inFlight.transaction() != null) {
			try (Lease lease = inFlight.lease()) {
				completeTransaction(inFlight.transaction(), lease, inFlight, response, ex);
			}
			catch (RuntimeException failure) {
				logger.warn("Could not release the lock of an idempotent request", failure);
			}
			return;
		}
		try (Lease lease = inFlight.lease()) {
			ContentCachingResponseWrapper capturing = WebUtils.getNativeResponse(response,
					ContentCachingResponseWrapper.class);
			if (ex != null || capturing == null || !this.policy.isKept(capturing.getStatus())) {
				return;
			}
			StoredResponse stored = capture(inFlight.fingerprint(), capturing);
			// Kept and released in one store call where the store can; close() then
			// releases only a lock that call failed to release
			if (!lease.releaseKeepingResult(stored.toBytes(), inFlight.retention())) {
				logger.warn("Response of an idempotent request not kept: its lock expired before the request "
						+ "completed; a retry will run the request again");
			}
		}
		catch (RuntimeException failure) {
			logger.warn("Response of an idempotent request not kept; a retry will run the request again", failure);
		}
	}

	/**
	 * Keep the response in the request's transaction and commit, or roll back; the lease
	 * is released by the caller, after the commit (its release would wait for the row
	 * lock that keeping the response takes).
	 */
	private void completeTransaction(IdempotentRequestTransactions.Transaction transaction, Lease lease,
			InFlight inFlight, HttpServletResponse response, @Nullable Exception ex) {
		ContentCachingResponseWrapper capturing = WebUtils.getNativeResponse(response,
				ContentCachingResponseWrapper.class);
		if (ex != null || capturing == null || !this.policy.isKept(capturing.getStatus())) {
			rollback(transaction);
			return;
		}
		if (transaction.isRollbackOnly()) {
			// A participant failed, and the handler answered anyway
			rollback(transaction);
			if (capturing.getStatus() >= 400) {
				// A client error: nothing was done, and that is the outcome to keep,
				// outside
				// the transaction, which is over
				keepAfterRollback(lease, inFlight, capturing);
			}
			else {
				logger.warn("Idempotent request answered " + capturing.getStatus() + " but its transaction was "
						+ "marked rollback-only; it is rolled back and a 503 response sent instead");
				notKept(capturing);
			}
			return;
		}
		RuntimeException failure = null;
		try {
			StoredResponse stored = capture(inFlight.fingerprint(), capturing);
			if (lease.putResult(stored.toBytes(), inFlight.retention())) {
				transaction.commit();
				return;
			}
			logger.warn("Response of an idempotent request not kept: its lock expired before the request "
					+ "completed; its transaction is rolled back and a 503 response sent instead");
		}
		catch (RuntimeException commitOrStoreFailure) {
			failure = commitOrStoreFailure;
			logger.warn("Response of an idempotent request not kept, or its transaction not committed; the "
					+ "transaction is rolled back and a 503 response sent instead", failure);
		}
		RuntimeException rollbackFailure = transaction.rollback();
		if (rollbackFailure != null) {
			logger.warn("Could not roll back the transaction of an idempotent request", rollbackFailure);
		}
		notKept(capturing);
	}

	private static void rollback(IdempotentRequestTransactions.Transaction transaction) {
		RuntimeException failure = transaction.rollback();
		if (failure != null) {
			logger.warn("Could not roll back the transaction of an idempotent request", failure);
		}
	}

	private void keepAfterRollback(Lease lease, InFlight inFlight, ContentCachingResponseWrapper capturing) {
		try {
			if (!lease.putResult(capture(inFlight.fingerprint(), capturing).toBytes(), inFlight.retention())) {
				logger.warn("Response of an idempotent request not kept: its lock expired before the request "
						+ "completed; a retry will run the request again");
			}
		}
		catch (RuntimeException failure) {
			logger.warn("Response of an idempotent request not kept; a retry will run the request again", failure);
		}
	}

	/**
	 * Replace the buffered response, not sent yet, by a 503 problem response.
	 */
	private void notKept(ContentCachingResponseWrapper capturing) {
		if (capturing.isCommitted()) {
			logger.warn("Could not replace the response of an idempotent request whose outcome was not kept: "
					+ "the response is already committed");
			return;
		}
		capturing.reset();
		capturing.setStatus(503);
		capturing.setHeader(HttpHeaders.RETRY_AFTER, "1");
		capturing.setContentType("application/problem+json");
		byte[] body = NOT_KEPT_PROBLEM.getBytes(StandardCharsets.UTF_8);
		capturing.setContentLength(body.length);
		try {
			capturing.getOutputStream().write(body);
		}
		catch (IOException failure) {
			logger.warn("Could not write the 503 response of an idempotent request", failure);
		}
	}

	private StoredResponse capture(byte[] fingerprint, ContentCachingResponseWrapper response) {
		return this.policy.capture(fingerprint, response.getStatus(), response.getContentType(), response::getHeaders,
				response.getContentAsByteArray());
	}

	private static void replay(StoredResponse stored, HttpServletResponse response) throws IOException {
		response.setStatus(stored.status());
		for (Map.Entry<String, String> header : IdempotencyPolicy.replayedHeaders(stored)) {
			if (HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(header.getKey())) {
				response.setContentType(header.getValue());
			}
			else {
				response.addHeader(header.getKey(), header.getValue());
			}
		}
		response.setHeader(IDEMPOTENT_REPLAYED, "true");
		response.setContentLength(stored.body().length);
		response.getOutputStream().write(stored.body());
	}

	private @Nullable String key(HttpServletRequest request) {
		Enumeration<String> values = request.getHeaders(IDEMPOTENCY_KEY);
		return this.policy.key((values != null) ? Collections.list(values) : null);
	}

	static String lockKey(@Nullable Principal principal, String key) {
		return IdempotencyPolicy.lockKey((principal != null) ? principal.getName() : null, key);
	}

	private static Duration positive(Duration duration, String name) {
		Assert.notNull(duration, () -> "'" + name + "' must not be null");
		Assert.isTrue(!duration.isNegative() && !duration.isZero(),
				() -> "'" + name + "' must be positive, was " + duration);
		return duration;
	}

	private record InFlight(Lease lease, byte[] fingerprint, Duration retention,
			IdempotentRequestTransactions.@Nullable Transaction transaction) {

	}

}
