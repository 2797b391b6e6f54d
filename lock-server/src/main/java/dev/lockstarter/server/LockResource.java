package dev.lockstarter.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.servlet.http.HttpServletRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.json.JsonMapper;

import dev.lockstarter.core.DetachedLease;
import dev.lockstarter.core.DetachedLockOperations;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.ReactiveLockTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.util.UriUtils;

/**
 * The lock resource, {@code /v1/namespaces/{namespace}/locks/{key}}, as
 * {@code classpath:static/v1/openapi.yaml} describes it: {@code POST} acquires (waiting
 * up to {@code waitMillis}, woken by the release on any instance), {@code PUT} renews and
 * {@code DELETE} releases with the {@code Lock-Owner-Token} header, {@code GET} tells
 * whether the lock is held, and for how long, without the token. Each method answers with
 * the response to send, or throws the {@link LockRequestException} to answer with;
 * {@link LockServlet} carries them over HTTP.
 * <p>
 * The key is the path segment after {@code locks/}, percent-decoded here as strict UTF-8
 * (a malformed sequence is refused, never replaced), so that it can hold any character
 * but a control character, {@code /} included (as {@code %2F}).
 *
 * @since 0.1.0
 */
class LockResource {

	static final String OWNER_TOKEN = "Lock-Owner-Token";

	private static final Log logger = LogFactory.getLog(LockResource.class);

	private static final int OWNER_TOKEN_LENGTH = 22;

	private static final JsonMapper JSON = JsonMapper.builder()
		.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_TRAILING_TOKENS,
				DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
		.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
		.disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
		.build();

	private final NamespaceLocks locks;

	private final LockServerProperties properties;

	private final WaitLimiter waits;

	private final LockQuotas quotas;

	/**
	 * The share of a time-to-live that a renewal's answer leaves out
	 * ({@code lock.loss-margin}).
	 */
	private final double lossMargin;

	LockResource(NamespaceLocks locks, LockServerProperties properties, WaitLimiter waits, LockQuotas quotas,
			double lossMargin) {
		this.locks = locks;
		this.properties = properties;
		this.waits = waits;
		this.quotas = quotas;
		this.lossMargin = lossMargin;
	}

	/**
	 * Acquire. Without a wait the attempt is decided on the calling thread, and the
	 * answer returned is complete already (or the {@link LockRequestException} to answer
	 * with is thrown). With a wait the answer completes when the lock is granted or the
	 * wait ends, so that a waiting request holds no thread.
	 * @param request the request
	 * @return the answer
	 * @throws IOException if the body cannot be read
	 */
	Mono<LockAnswer<AcquiredLock>> acquire(HttpServletRequest request) throws IOException {
		LockPath path = path(request);
		AcquireRequest body = body(request, AcquireRequest.class, new AcquireRequest(null, null));
		Duration ttl = ttl(body.ttlMillis());
		Duration wait = Duration.ofMillis(check("waitMillis", body.waitMillis(), 0, this.properties.getMaxWait()));
		LockOptions options = LockOptions.ttl(ttl).withWaitTime(wait).withName("lock-server." + path.namespace());
		ApiClients.ApiClient client = path.client();
		if (!this.quotas.tryReserve(client)) {
			throw new LockRequestException(HttpStatus.TOO_MANY_REQUESTS, "lock-quota", "Lock quota reached",
					"This API key holds as many locks as it may (" + client.maxLocks()
							+ "); release one, or retry when one expires",
					Map.of(), 1);
		}
		if (wait.isZero()) {
			LockAttempt attempt;
			try {
				attempt = path.locks().tryAcquireDetached(path.key(), options);
			}
			catch (RuntimeException ex) {
				this.quotas.refused(client);
				throw ex;
			}
			return Mono.just(acquired(path, ttl, wait, attempt));
		}
		if (!this.waits.tryStart(client)) {
			this.quotas.refused(client);
			throw new LockRequestException(HttpStatus.TOO_MANY_REQUESTS, "too-many-waits", "Too many waits",
					"Too many acquisitions are waiting, for this API key or on this server; retry later", Map.of(), 1);
		}
		AtomicBoolean settled = new AtomicBoolean();
		return path.waiting().tryAcquireDetached(path.key(), options).map((attempt) -> {
			settled.set(true);
			return acquired(path, ttl, wait, attempt);
		}).doFinally((signal) -> {
			this.waits.end(client);
			if (!settled.get()) {
				this.quotas.refused(client);
			}
		});
	}

	/** The answer to an attempt, whose quota place it settles. */
	private LockAnswer<AcquiredLock> acquired(LockPath path, Duration ttl, Duration wait, LockAttempt attempt) {
		if (!attempt.isAcquired()) {
			this.quotas.refused(path.client());
			Duration left = attempt.holderRemainingTtl();
			throw new LockRequestException(HttpStatus.CONFLICT, "lock-conflict", "Lock held",
					"The lock is held by another owner" + (wait.isZero() ? "" : ", also after the wait"),
					Map.of("timeToExpiryMillis", left.toMillis()), Math.max(1, (left.toMillis() + 999) / 1000));
		}
		this.quotas.granted(path.client(), path.key(), ttl.toNanos());
		DetachedLease lease = (DetachedLease) attempt.lease();
		return LockAnswer.created(path.location(), new AcquiredLock(path.namespace(), path.key(), lease.ownerToken(),
				lease.fencingToken(), lease.expiresAt().toString(), ttl.toMillis()));
	}

	/**
	 * Release a lock granted to a waiting acquisition whose request ended before the
	 * answer could be written (it timed out, failed, or its client hung up): no client
	 * holds its owner token. The release runs on a thread that may block; if it fails,
	 * the lock expires at the end of its time-to-live.
	 * @param lock the granted lock
	 * @param client the client it was granted to
	 */
	void abandon(AcquiredLock lock, ApiClients.ApiClient client) {
		Mono.fromRunnable(() -> this.locks.get(lock.namespace()).releaseDetached(lock.key(), lock.ownerToken()))
			.subscribeOn(Schedulers.boundedElastic())
			.doFinally((signal) -> this.quotas.released(client, lock.key()))
			.subscribe(null, (ex) -> logger
				.warn("A lock whose client left was not released; it expires in " + lock.ttlMillis() + " ms", ex));
	}

	LockAnswer<RenewedLock> renew(HttpServletRequest request) throws IOException {
		LockPath path = path(request);
		String ownerToken = ownerToken(request.getHeader(OWNER_TOKEN));
		RenewRequest body = body(request, RenewRequest.class, new RenewRequest(null));
		Duration ttl = ttl(body.ttlMillis());
		long sentAt = System.nanoTime();
		if (!path.locks().extendDetached(path.key(), ownerToken, ttl)) {
			throw notOwned(path, "renewed");
		}
		this.quotas.renewed(path.client(), path.key(), ttl.toNanos());
		// As a detached lease tells it: the local deadline, on the monotonic clock
		long ttlNanos = ttl.toNanos();
		long lossAt = sentAt + ttlNanos - (long) (ttlNanos * this.lossMargin);
		Instant expiresAt = Instant.now().plusNanos(lossAt - System.nanoTime());
		return LockAnswer.ok(new RenewedLock(path.namespace(), path.key(), expiresAt.toString(), ttl.toMillis()));
	}

	LockAnswer<LockAnswer.Body> release(HttpServletRequest request) {
		LockPath path = path(request);
		String ownerToken = ownerToken(request.getHeader(OWNER_TOKEN));
		if (!path.locks().releaseDetached(path.key(), ownerToken)) {
			throw notOwned(path, "released");
		}
		this.quotas.released(path.client(), path.key());
		return LockAnswer.noContent();
	}

	LockAnswer<LockStatus> status(HttpServletRequest request) {
		LockPath path = path(request);
		Duration left = path.locks().timeToExpiry(path.key());
		return LockAnswer.ok(new LockStatus(path.namespace(), path.key(), !left.isZero(),
				left.isZero() ? 0 : Math.max(1, left.toMillis())));
	}

	/**
	 * A renewal or release changed nothing: tell whether another owner holds the lock now
	 * (409) or no one does (410), never who.
	 */
	private LockRequestException notOwned(LockPath path, String action) {
		if (!path.locks().timeToExpiry(path.key()).isZero()) {
			return new LockRequestException(HttpStatus.CONFLICT, "lock-not-owned", "Not the owner",
					"The lock is held under another owner token: it was not " + action
							+ " (this token's lock expired and was taken again, or the token is wrong)");
		}
		return new LockRequestException(HttpStatus.GONE, "lock-not-held", "Lock not held",
				"The lock is not held: it expired or was released before this request, and was not " + action);
	}

	private LockPath path(HttpServletRequest request) {
		ApiClients.ApiClient client = (ApiClients.ApiClient) request.getAttribute(ApiKeyFilter.CLIENT);
		ApiKeyFilter.RawLockPath raw = (ApiKeyFilter.RawLockPath) request.getAttribute(ApiKeyFilter.LOCK_PATH);
		if (client == null || raw == null || !client.namespace().equals(raw.namespace())) {
			// Unreachable past the API key filter, which refuses such a request first
			throw LockRequestException
				.badRequest("The path must be " + ApiKeyFilter.PREFIX + "<namespace>/locks/<key>");
		}
		if (raw.rawKey().length() > this.properties.getMaxKeyBytes() * 3) {
			throw tooLongKey();
		}
		String key = decode(raw.rawKey());
		if (key.getBytes(StandardCharsets.UTF_8).length > this.properties.getMaxKeyBytes()) {
			throw tooLongKey();
		}
		if (key.isBlank() || hasControlCharacter(key)) {
			throw LockRequestException.badRequest("The key must not be blank or contain control characters");
		}
		return new LockPath(raw.namespace(), key, client, this.locks.get(raw.namespace()),
				this.locks.waiting(raw.namespace()));
	}

	private LockRequestException tooLongKey() {
		return LockRequestException
			.tooLarge("The key is longer than " + this.properties.getMaxKeyBytes() + " bytes of UTF-8");
	}

	/** Percent-decode one path segment as strict UTF-8. */
	private static String decode(String raw) {
		if (isPlainAscii(raw)) {
			return raw;
		}
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
		for (int i = 0; i < raw.length(); i++) {
			char c = raw.charAt(i);
			if (c == '%') {
				if (i + 2 >= raw.length() || Character.digit(raw.charAt(i + 1), 16) < 0
						|| Character.digit(raw.charAt(i + 2), 16) < 0) {
					throw LockRequestException.badRequest("The key has a malformed percent-encoding");
				}
				bytes.write(Character.digit(raw.charAt(i + 1), 16) * 16 + Character.digit(raw.charAt(i + 2), 16));
				i += 2;
			}
			else if (c < 0x80) {
				bytes.write(c);
			}
			else {
				throw LockRequestException.badRequest("The key must be percent-encoded UTF-8");
			}
		}
		try {
			return StandardCharsets.UTF_8.newDecoder()
				.onMalformedInput(CodingErrorAction.REPORT)
				.onUnmappableCharacter(CodingErrorAction.REPORT)
				.decode(ByteBuffer.wrap(bytes.toByteArray()))
				.toString();
		}
		catch (CharacterCodingException ex) {
			throw LockRequestException.badRequest("The key is not valid UTF-8");
		}
	}

	private static boolean hasControlCharacter(String key) {
		for (int i = 0; i < key.length(); i++) {
			if (Character.isISOControl(key.charAt(i))) {
				return true;
			}
		}
		return false;
	}

	/** Whether a segment is ASCII without a percent-encoding: its own decoding. */
	private static boolean isPlainAscii(String raw) {
		for (int i = 0; i < raw.length(); i++) {
			char c = raw.charAt(i);
			if (c == '%' || c >= 0x80) {
				return false;
			}
		}
		return true;
	}

	private static String ownerToken(@Nullable String token) {
		if (token == null || token.isEmpty()) {
			throw LockRequestException.badRequest("Send the owner token in the '" + OWNER_TOKEN + "' header");
		}
		if (!isOwnerToken(token)) {
			throw LockRequestException.badRequest("The '" + OWNER_TOKEN + "' header is not an owner token");
		}
		return token;
	}

	/** Whether a token has the form of an owner token: 22 characters of base64url. */
	private static boolean isOwnerToken(String token) {
		if (token.length() != OWNER_TOKEN_LENGTH) {
			return false;
		}
		for (int i = 0; i < token.length(); i++) {
			char c = token.charAt(i);
			if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
				return false;
			}
		}
		return true;
	}

	private Duration ttl(@Nullable Long ttlMillis) {
		if (ttlMillis == null) {
			return this.properties.getDefaultTtl();
		}
		return Duration.ofMillis(check("ttlMillis", ttlMillis, 1, this.properties.getMaxTtl()));
	}

	private static long check(String field, @Nullable Long value, long min, Duration max) {
		if (value == null) {
			return min;
		}
		if (value < min || value > max.toMillis()) {
			throw LockRequestException
				.badRequest("'" + field + "' must be between " + min + " and " + max.toMillis() + ", was " + value);
		}
		return value;
	}

	/**
	 * Read a JSON body of at most {@code lock.server.max-body-bytes}; none gives the
	 * default.
	 */
	private <T> T body(HttpServletRequest request, Class<T> type, T none) throws IOException {
		int max = this.properties.getMaxBodyBytes();
		if (request.getContentLengthLong() > max) {
			throw LockRequestException.tooLarge("The body is longer than " + max + " bytes");
		}
		byte[] body;
		try (InputStream in = request.getInputStream()) {
			body = in.readNBytes(max + 1);
		}
		if (body.length > max) {
			throw LockRequestException.tooLarge("The body is longer than " + max + " bytes");
		}
		if (body.length == 0) {
			return none;
		}
		if (!isJson(request.getContentType())) {
			throw new LockRequestException(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type",
					"Unsupported media type", "Send the body as application/json");
		}
		try {
			return JSON.readValue(body, type);
		}
		catch (JacksonException ex) {
			// The parser's message may quote the body, so it is not passed on
			throw LockRequestException.badRequest("The body must be a JSON object with only the fields "
					+ String.join(", ", fields(type)) + ", each an integer");
		}
	}

	private static boolean isJson(@Nullable String contentType) {
		if (contentType == null) {
			return false;
		}
		try {
			return MediaType.APPLICATION_JSON.isCompatibleWith(MediaType.parseMediaType(contentType));
		}
		catch (InvalidMediaTypeException ex) {
			return false;
		}
	}

	private static String[] fields(Class<?> type) {
		return java.util.Arrays.stream(type.getRecordComponents())
			.map(java.lang.reflect.RecordComponent::getName)
			.toArray(String[]::new);
	}

	private record LockPath(String namespace, String key, ApiClients.ApiClient client, DetachedLockOperations locks,
			ReactiveLockTemplate waiting) {

		String location() {
			return ApiKeyFilter.PREFIX + this.namespace + "/locks/"
					+ UriUtils.encodePathSegment(this.key, StandardCharsets.UTF_8);
		}

	}

	record AcquireRequest(@Nullable Long ttlMillis, @Nullable Long waitMillis) {
	}

	record RenewRequest(@Nullable Long ttlMillis) {
	}

	record AcquiredLock(String namespace, String key, String ownerToken, long fencingToken, String expiresAt,
			long ttlMillis) implements LockAnswer.Body {

		@Override
		public byte[] json() {
			return new JsonObject().string("namespace", this.namespace)
				.string("key", this.key)
				.string("ownerToken", this.ownerToken)
				.number("fencingToken", this.fencingToken)
				.string("expiresAt", this.expiresAt)
				.number("ttlMillis", this.ttlMillis)
				.toBytes();
		}

	}

	record RenewedLock(String namespace, String key, String expiresAt, long ttlMillis) implements LockAnswer.Body {

		@Override
		public byte[] json() {
			return new JsonObject().string("namespace", this.namespace)
				.string("key", this.key)
				.string("expiresAt", this.expiresAt)
				.number("ttlMillis", this.ttlMillis)
				.toBytes();
		}

	}

	record LockStatus(String namespace, String key, boolean held, long timeToExpiryMillis) implements LockAnswer.Body {

		@Override
		public byte[] json() {
			return new JsonObject().string("namespace", this.namespace)
				.string("key", this.key)
				.bool("held", this.held)
				.number("timeToExpiryMillis", this.timeToExpiryMillis)
				.toBytes();
		}

	}

}
