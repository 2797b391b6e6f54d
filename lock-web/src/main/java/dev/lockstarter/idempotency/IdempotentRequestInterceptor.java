package dev.lockstarter.idempotency;

import java.io.IOException;
import java.security.Principal;
import java.time.Duration;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Internal;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockResults;
import dev.lockstarter.idempotency.IdempotentRequestListener.Outcome;
import org.springframework.util.Assert;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.util.WebUtils;

/**
 * Runs {@link IdempotentRequest} handler methods at most once per idempotency key, and
 * replays the kept response to later requests with the same key. Needs
 * {@link IdempotentRequestBufferingFilter} in front of the dispatcher servlet, and a
 * {@link LockOperations} whose store keeps results ({@link LockOperations#results()}).
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
 * <li>With no kept response, the handler runs, its response body held up to the
 * {@linkplain #setMaxResponseSize(long) largest kept response}. When the request
 * completes, its response is kept with the lock's result for the retention period, unless
 * it is a server error (5xx, unless configured otherwise) or a status that asks to try
 * again (408, 409, 425, 429), the handler ended with an unhandled exception, or its body
 * outgrew the bound (then it streamed to the client past the bound, and a warning names
 * the handler and the size). Then the lock is released.</li>
 * </ol>
 * Requests to handlers without the annotation are neither buffered nor held, header or
 * not. {@code Set-Cookie} headers are never kept nor replayed.
 * <p>
 * <b>Transactional mode</b> ({@link #setTransactions(IdempotentRequestTransactions)}):
 * the kept response is written in the same database transaction as the handler's own
 * writes, so that a crash between the two leaves both or neither. See
 * {@link #setTransactions(IdempotentRequestTransactions)}.
 *
 * @since 0.1.0
 */
@Internal
public class IdempotentRequestInterceptor extends IdempotentRequestSupport implements HandlerInterceptor {

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

	/**
	 * The default largest kept response body, in bytes: 1 MiB. Memcached's default item
	 * limit, and ample for the JSON answers of the operations worth retrying.
	 */
	public static final long DEFAULT_MAX_RESPONSE_SIZE = 1024 * 1024;

	private static final String IN_FLIGHT_ATTRIBUTE = IdempotentRequestInterceptor.class.getName() + ".IN_FLIGHT";

	private static final Log logger = LogFactory.getLog(IdempotentRequestInterceptor.class);

	private final Supplier<LockOperations> locks;

	private ResponseKeeping responseKeeping;

	private boolean transactional;

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
		super(lockOptions, retention, true);
		Assert.notNull(locks, "'locks' must not be null");
		this.locks = locks;
		this.responseKeeping = new LockStoreResponseKeeping(policy());
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
		this.responseKeeping = (transactions != null) ? new TransactionalResponseKeeping(transactions, policy())
				: new LockStoreResponseKeeping(policy());
		this.transactional = (transactions != null);
	}

	/**
	 * Return whether requests run in transactions that also keep their responses.
	 * @return whether the transactional mode is on
	 * @see #setTransactions(IdempotentRequestTransactions)
	 */
	public boolean isTransactional() {
		return this.transactional;
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
			throws IOException {
		if (!(handler instanceof HandlerMethod handlerMethod)
				|| request.getDispatcherType() != DispatcherType.REQUEST) {
			return true;
		}
		IdempotentRequestAttribute attribute = attributeOf(handlerMethod.getMethod());
		if (attribute == null) {
			return true;
		}
		if (listener() == null) {
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
				notifyListener(handlerMethod, outcome);
			}
		}
	}

	/**
	 * Check the key, take the lock, and either replay the kept response or let the
	 * handler run with its response to keep.
	 * @return whether the handler runs
	 */
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
		BufferedResponse bufferedResponse = WebUtils.getNativeResponse(response, BufferedResponse.class);
		if (buffered == null || bufferedResponse == null) {
			throw new IllegalStateException(
					"@IdempotentRequest needs the " + IdempotentRequestBufferingFilter.class.getName()
							+ " servlet filter in front of the " + "dispatcher servlet");
		}
		byte[] fingerprint = RequestFingerprint.of(request, buffered, policy().maxBodySize());
		String lockKey = lockKey(request.getUserPrincipal(), key);
		LockOperations locks = this.locks.get();
		LockAttempt attempt = locks.tryAcquire(lockKey, getLockOptions());
		if (!attempt.isAcquired()) {
			throw new IdempotentRequestInProgressException(attempt.retryAfter());
		}
		Lease lease = attempt.lease();
		Optional<byte[]> kept;
		try {
			kept = keptResults(locks).findResult(lockKey);
			if (kept.isEmpty()) {
				request.setAttribute(IN_FLIGHT_ATTRIBUTE,
						this.responseKeeping.begin(lease, fingerprint, attribute.retention()));
				// Past the bound, a response that is not kept streams to the client,
				// unless it is to be replaced by a 503 with the transaction's rollback
				bufferedResponse.hold(policy().maxResponseSize(), !this.transactional);
				return true;
			}
		}
		catch (RuntimeException ex) {
			lease.close();
			throw ex;
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
		if (request.getAttribute(IN_FLIGHT_ATTRIBUTE) instanceof ResponseKeeping.InFlight inFlight) {
			request.removeAttribute(IN_FLIGHT_ATTRIBUTE);
			BufferedResponse buffered = WebUtils.getNativeResponse(response, BufferedResponse.class);
			if (buffered != null && buffered.isOverflowed() && handler instanceof HandlerMethod handlerMethod) {
				logger.warn(policy().tooLargeToKeep(handlerName(handlerMethod), buffered.getBodySize(),
						this.transactional ? "its transaction is rolled back and a 503 response sent instead"
								: "it was sent in full, and a retry will run the request again"));
			}
			inFlight.complete(buffered, ex);
		}
	}

	private static void replay(StoredResponse stored, HttpServletResponse response) throws IOException {
		ResponseReplay.writeHead(stored, new ResponseReplay.Head() {

			@Override
			public void status(int status) {
				response.setStatus(status);
			}

			@Override
			public void contentType(String contentType) {
				response.setContentType(contentType);
			}

			@Override
			public void addHeader(String name, String value) {
				response.addHeader(name, value);
			}

			@Override
			public void setHeader(String name, String value) {
				response.setHeader(name, value);
			}

			@Override
			public void contentLength(int length) {
				response.setContentLength(length);
			}

		});
		response.getOutputStream().write(stored.body());
	}

	private @Nullable String key(HttpServletRequest request) {
		Enumeration<String> values = request.getHeaders(IDEMPOTENCY_KEY);
		return policy().key((values != null) ? Collections.list(values) : null);
	}

	static String lockKey(@Nullable Principal principal, String key) {
		return IdempotencyPolicy.lockKey((principal != null) ? principal.getName() : null, key);
	}

	private static LockResults keptResults(LockOperations locks) {
		return locks.results()
			.orElseThrow(() -> new IllegalStateException("@IdempotentRequest needs a lock store that keeps results; "
					+ "the lock operations " + locks.getClass().getName() + " keep none"));
	}

}
