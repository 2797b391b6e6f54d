package dev.lockstarter.idempotency;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTtlTooShortException;
import dev.lockstarter.idempotency.IdempotentRequestListener.Outcome;
import dev.lockstarter.store.LockStoreException;
import org.springframework.http.HttpHeaders;
import org.springframework.util.Assert;

/**
 * The rules of idempotent requests that do not depend on the web stack, shared by the
 * Spring MVC {@link IdempotentRequestInterceptor} and the WebFlux
 * {@link IdempotentRequestWebFilter}, so that both read keys, name locks and keep
 * responses alike, and instances of either stack on one store replay each other's
 * responses: the {@code Idempotency-Key} header and its limits, the lock key, the body
 * size limit, which statuses are kept, and which headers are kept and replayed.
 */
final class IdempotencyPolicy {

	/** The name of the locks of idempotent requests, and the first part of their keys. */
	static final String LOCK_NAME = "idempotency";

	/** The default response headers kept and replayed, besides {@code Content-Type}. */
	static final List<String> DEFAULT_REPLAYED_HEADERS = List.of(HttpHeaders.CONTENT_TYPE, HttpHeaders.LOCATION,
			HttpHeaders.ETAG, HttpHeaders.CACHE_CONTROL);

	/** Response headers that are never kept nor replayed, lower case. */
	static final Set<String> NEVER_REPLAYED = Set.of("set-cookie", "set-cookie2");

	/** Logged when a response is not kept because its lock expired first. */
	static final String LOCK_EXPIRED = "Response of an idempotent request not kept: its lock expired before the "
			+ "request completed; a retry will run the request again";

	/** Logged, with the failure, when a response is not kept because the store failed. */
	static final String NOT_KEPT = "Response of an idempotent request not kept; a retry will run the request again";

	/** Statuses that ask the client to try again, so they are not kept. */
	private static final Set<Integer> RETRYABLE_STATUSES = Set.of(408, 409, 425, 429);

	private List<String> replayedHeaders = DEFAULT_REPLAYED_HEADERS;

	private boolean storeServerErrors;

	private int maxKeyLength = IdempotentRequestInterceptor.DEFAULT_MAX_KEY_LENGTH;

	private long maxBodySize = IdempotentRequestInterceptor.DEFAULT_MAX_BODY_SIZE;

	private long maxResponseSize = IdempotentRequestInterceptor.DEFAULT_MAX_RESPONSE_SIZE;

	void setReplayedHeaders(Collection<String> replayedHeaders) {
		Assert.notNull(replayedHeaders, "'replayedHeaders' must not be null");
		Set<String> names = new LinkedHashSet<>();
		for (String name : replayedHeaders) {
			Assert.hasText(name, "'replayedHeaders' must not contain blank names");
			Assert.isTrue(!NEVER_REPLAYED.contains(name.strip().toLowerCase(Locale.ROOT)),
					() -> "'replayedHeaders' must not contain " + name + ": cookies are never replayed");
			names.add(name.strip());
		}
		this.replayedHeaders = List.copyOf(names);
	}

	void setStoreServerErrors(boolean storeServerErrors) {
		this.storeServerErrors = storeServerErrors;
	}

	void setMaxKeyLength(int maxKeyLength) {
		Assert.isTrue(maxKeyLength > 0, () -> "'maxKeyLength' must be positive, was " + maxKeyLength);
		this.maxKeyLength = maxKeyLength;
	}

	void setMaxBodySize(long maxBodySize) {
		Assert.isTrue(maxBodySize > 0, () -> "'maxBodySize' must be positive, was " + maxBodySize);
		this.maxBodySize = maxBodySize;
	}

	long maxBodySize() {
		return this.maxBodySize;
	}

	void setMaxResponseSize(long maxResponseSize) {
		Assert.isTrue(maxResponseSize > 0, () -> "'maxResponseSize' must be positive, was " + maxResponseSize);
		this.maxResponseSize = maxResponseSize;
	}

	long maxResponseSize() {
		return this.maxResponseSize;
	}

	/**
	 * Return the warning logged when a response is not kept because its body outgrew the
	 * largest kept response. Names the handler and the size, never the body.
	 * @param handler the handler's name
	 * @param size the size of the body, in bytes
	 * @param outcome what became of the response
	 * @return the message
	 */
	String tooLargeToKeep(String handler, long size, String outcome) {
		return "Response of an idempotent request to " + handler + " not kept: its body, " + size
				+ " bytes, exceeds the largest kept response (" + this.maxResponseSize
				+ " bytes, lock.idempotency.max-response-size); " + outcome;
	}

	/**
	 * Read the idempotency key from the values of the {@code Idempotency-Key} header.
	 * @param values the header's values, empty or {@code null} if it is missing
	 * @return the key, or {@code null} if the header is missing
	 * @throws InvalidIdempotencyKeyException if the header is repeated, malformed or too
	 * long
	 */
	@Nullable String key(@Nullable List<String> values) {
		if (values == null || values.isEmpty()) {
			return null;
		}
		if (values.size() > 1) {
			throw new InvalidIdempotencyKeyException(
					"The request has more than one " + IdempotentRequestInterceptor.IDEMPOTENCY_KEY + " header.",
					false);
		}
		String key = IdempotencyKeys.parse(values.get(0));
		if (key == null) {
			throw new InvalidIdempotencyKeyException(
					"The " + IdempotentRequestInterceptor.IDEMPOTENCY_KEY
							+ " header must be a string of printable ASCII characters, such as \"8e03978e-40d5-43e8\".",
					false);
		}
		if (key.length() > this.maxKeyLength) {
			throw new InvalidIdempotencyKeyException("The " + IdempotentRequestInterceptor.IDEMPOTENCY_KEY
					+ " header must have at most " + this.maxKeyLength + " characters.", false);
		}
		return key;
	}

	/**
	 * Return the rejection of a request without a key to a handler that requires one.
	 * @return the exception to throw
	 */
	static InvalidIdempotencyKeyException missingKey() {
		return new InvalidIdempotencyKeyException(
				"The request has no " + IdempotentRequestInterceptor.IDEMPOTENCY_KEY + " header.", true);
	}

	/**
	 * Return the lock key of an idempotency key: {@code idempotency:anonymous:{key}}, or
	 * {@code idempotency:user:{url-encoded principal name}:{key}}.
	 * @param principalName the name of the request's principal, or {@code null} if the
	 * request is anonymous
	 * @param key the idempotency key
	 * @return the lock key
	 */
	static String lockKey(@Nullable String principalName, String key) {
		if (principalName == null) {
			return LOCK_NAME + ":anonymous:" + key;
		}
		// Encoded, so the name holds no ':' and distinct (name, key) pairs give distinct
		// lock keys.
		return LOCK_NAME + ":user:" + URLEncoder.encode(principalName, StandardCharsets.UTF_8) + ":" + key;
	}

	/**
	 * Return the options of the lock held while an idempotent request runs.
	 * @param configured the configured options
	 * @return the options, named {@code "idempotency"}, without waiting
	 */
	static LockOptions lockOptions(LockOptions configured) {
		return configured.withWaitTime(Duration.ZERO).withName(LOCK_NAME);
	}

	/**
	 * Return whether a response with a status is kept for replays.
	 * @param status the status
	 * @return {@code false} for a status that asks to try again, or a server error unless
	 * those are kept
	 */
	boolean isKept(int status) {
		return (status < 500 || this.storeServerErrors) && !RETRYABLE_STATUSES.contains(status);
	}

	/**
	 * Capture a response to keep it: its status, content type, replayed headers and body.
	 * @param fingerprint the request's fingerprint
	 * @param status the response status
	 * @param contentType the response content type, or {@code null} for none
	 * @param headerValues the values of a response header, by name, empty if it is absent
	 * @param body the response body
	 * @return the response to keep
	 */
	StoredResponse capture(byte[] fingerprint, int status, @Nullable String contentType,
			Function<String, ? extends @Nullable Collection<String>> headerValues, byte[] body) {
		List<Map.Entry<String, String>> headers = new ArrayList<>();
		if (contentType != null) {
			headers.add(Map.entry(HttpHeaders.CONTENT_TYPE, contentType));
		}
		for (String name : this.replayedHeaders) {
			if (!HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name)) {
				Collection<String> values = headerValues.apply(name);
				if (values != null) {
					for (String value : values) {
						headers.add(Map.entry(name, value));
					}
				}
			}
		}
		return new StoredResponse(fingerprint, status, headers, body);
	}

	/**
	 * Return the headers of a kept response to replay, in order, without those that are
	 * never replayed.
	 * @param stored the kept response
	 * @return the headers, {@code Content-Type} among them if it was kept
	 */
	static List<Map.Entry<String, String>> replayedHeaders(StoredResponse stored) {
		return stored.headers()
			.stream()
			.filter((header) -> !NEVER_REPLAYED.contains(header.getKey().toLowerCase(Locale.ROOT)))
			.toList();
	}

	/**
	 * Return the outcome of a request rejected with an exception.
	 * @param ex the exception
	 * @return the outcome, or {@code null} if the exception is not a rejection of an
	 * idempotent request
	 */
	static @Nullable Outcome outcomeOf(Throwable ex) {
		if (ex instanceof InvalidIdempotencyKeyException || ex instanceof IdempotentRequestTooLargeException) {
			return Outcome.INVALID;
		}
		if (ex instanceof IdempotentRequestInProgressException) {
			return Outcome.IN_FLIGHT;
		}
		if (ex instanceof IdempotencyKeyReusedException) {
			return Outcome.KEY_REUSED;
		}
		if (ex instanceof LockStoreException) {
			return Outcome.STORE_ERROR;
		}
		if (ex instanceof LockTtlTooShortException) {
			return Outcome.TTL_TOO_SHORT;
		}
		return null;
	}

	/**
	 * Return the name of a handler method as the listener sees it.
	 * @param beanType the handler's class
	 * @param methodName the method's name
	 * @return {@code SimpleClassName.method}
	 */
	static String handlerName(Class<?> beanType, String methodName) {
		return beanType.getSimpleName() + "." + methodName;
	}

}
