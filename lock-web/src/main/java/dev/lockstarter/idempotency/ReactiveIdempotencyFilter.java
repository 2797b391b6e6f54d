package dev.lockstarter.idempotency;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Method;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.ReactiveLockOperations;
import dev.lockstarter.idempotency.IdempotentRequestListener.Outcome;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.util.Assert;
import org.springframework.util.MultiValueMap;
import org.springframework.web.cors.reactive.CorsUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.DispatchExceptionHandler;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResult;
import org.springframework.web.reactive.HandlerResultHandler;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Runs {@link IdempotentRequest} handler methods of Spring WebFlux applications at most
 * once per idempotency key, and replays the kept response to later requests with the same
 * key: the WebFlux counterpart of {@link IdempotentRequestInterceptor}, with the same
 * rules, lock keys and stored format, so that Spring MVC and WebFlux instances on one
 * lock store replay each other's responses.
 * <p>
 * At startup (or on first use) the filter looks for annotated handler methods in the
 * application context's {@link RequestMappingHandlerMapping}s. With none, it passes every
 * request through untouched. Otherwise, for each request whose handler is annotated:
 * <ol>
 * <li>The key is read from the {@code Idempotency-Key} header, as
 * {@link IdempotentRequestInterceptor} reads it; a missing (when required), repeated,
 * malformed or over-long key is rejected with an
 * {@link InvalidIdempotencyKeyException}.</li>
 * <li>The body is buffered, without blocking, up to the {@linkplain #setMaxBodySize(long)
 * largest accepted size} ({@link IdempotentRequestTooLargeException} beyond it), and the
 * handler reads the buffered copy. The request's fingerprint is SHA-256 over the method,
 * raw path, raw query, content type and body; for a form-encoded request, over the query
 * and form parameters, merged as a servlet container merges them, so that the fingerprint
 * is the one Spring MVC computes for the same request.</li>
 * <li>The lock {@code idempotency:anonymous:{key}}, or
 * {@code idempotency:user:{url-encoded principal name}:{key}} for a request with a
 * {@linkplain ServerWebExchange#getPrincipal() principal}, is acquired through the
 * {@link ReactiveLockOperations} without waiting. Held by another request:
 * {@link IdempotentRequestInProgressException}.</li>
 * <li>A response kept for the key is replayed if the fingerprints match (status, kept
 * headers, body, plus {@code Idempotent-Replayed: true}); otherwise
 * {@link IdempotencyKeyReusedException}. The handler does not run.</li>
 * <li>With no kept response, the request goes on down the filter chain, with its response
 * captured. When the exchange completes, the response is kept with the lock's result for
 * the retention period, unless it is a server error (5xx, unless configured otherwise) or
 * a status that asks to try again (408, 409, 425, 429). An exchange that ends with an
 * error or is cancelled (the client went away) keeps nothing. The lock is released in
 * every case.</li>
 * </ol>
 * Rejections are answered as an exception of the handler would be: by the
 * {@code @ExceptionHandler} methods of the application's controller advice
 * ({@link dev.lockstarter.web.LockExceptionHandler} among them), through the context's
 * {@link HandlerAdapter}s and {@link HandlerResultHandler}s, as the
 * {@code DispatcherHandler} answers its own errors; without them, the error reaches the
 * server's exception handlers.
 * <p>
 * Kept responses are read and written through {@link ReactiveLockOperations#findResult}
 * and {@link ReactiveLockOperations#putResult}, which never block the thread of the
 * exchange (on Redis and in memory they do not block at all; other stores are called on a
 * bounded-elastic scheduler). The handler may produce its response in any way
 * ({@code Mono}, {@code Flux}, Kotlin {@code suspend} functions, plain values): only the
 * response written counts. It is held back, buffered in full, until it is kept and the
 * lock released (as the servlet side holds it until its request completes), so that a
 * client that has it and retries at once gets the kept response; streaming responses are
 * therefore not suitable.
 *
 * @since 0.1.0
 */
public class ReactiveIdempotencyFilter
		implements WebFilter, Ordered, ApplicationContextAware, SmartInitializingSingleton {

	/**
	 * The default order: {@code Ordered.LOWEST_PRECEDENCE - 100}, late among web filters,
	 * so that security and other filters run first.
	 */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private static final ResolvableType FORM_DATA_TYPE = ResolvableType.forClassWithGenerics(MultiValueMap.class,
			String.class, String.class);

	private static final ResolvableType MULTIPART_DATA_TYPE = ResolvableType.forClassWithGenerics(MultiValueMap.class,
			String.class, Part.class);

	private static final Log logger = LogFactory.getLog(ReactiveIdempotencyFilter.class);

	private final Supplier<ReactiveLockOperations> locks;

	private final Supplier<LockOptions> lockOptions;

	private final IdempotentRequestAttributeSource attributeSource;

	private final IdempotencyPolicy policy = new IdempotencyPolicy();

	private @Nullable IdempotentRequestListener listener;

	private int order = DEFAULT_ORDER;

	private @Nullable ApplicationContext applicationContext;

	private volatile @Nullable Strategies strategies;

	/**
	 * Create a new filter.
	 * @param locks the reactive lock operations, resolved on first use; their store must
	 * keep results
	 * @param lockOptions the options of the lock held while a request runs; waiting
	 * options are ignored: a request never waits for another with the same key
	 * @param retention how long a response is kept for replays when its method sets none
	 */
	public ReactiveIdempotencyFilter(Supplier<ReactiveLockOperations> locks, Supplier<LockOptions> lockOptions,
			Duration retention) {
		Assert.notNull(locks, "'locks' must not be null");
		Assert.notNull(lockOptions, "'lockOptions' must not be null");
		Assert.notNull(retention, "'retention' must not be null");
		Assert.isTrue(!retention.isNegative() && !retention.isZero(),
				() -> "'retention' must be positive, was " + retention);
		this.locks = locks;
		this.lockOptions = lockOptions;
		this.attributeSource = new IdempotentRequestAttributeSource(retention, false);
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
	 * Set the listener told how each idempotent request ended.
	 * @param listener the listener, or {@code null} for none
	 */
	public void setListener(@Nullable IdempotentRequestListener listener) {
		this.listener = listener;
	}

	/**
	 * Set the order of this filter among the web filters.
	 * @param order the order, {@link #DEFAULT_ORDER} by default
	 */
	public void setOrder(int order) {
		this.order = order;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	@Override
	public void setApplicationContext(ApplicationContext applicationContext) {
		this.applicationContext = applicationContext;
	}

	/**
	 * Find the annotated handler methods, and the exception and result handlers that
	 * answer rejections, in the application context.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		strategies();
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
	 * Return the annotated handler methods of the application context's
	 * {@link RequestMappingHandlerMapping}s, found once.
	 * @return the handler methods, empty if none is annotated or the filter is not in an
	 * application context
	 * @throws IllegalStateException if a declaration is invalid
	 */
	public List<HandlerMethod> getIdempotentHandlerMethods() {
		return strategies().idempotentHandlers();
	}

	/**
	 * Return the options of the lock held while an idempotent request runs: the
	 * configured ones, named {@code "idempotency"}, without waiting.
	 * @return the lock options
	 */
	public LockOptions getLockOptions() {
		return IdempotencyPolicy.lockOptions(this.lockOptions.get());
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		Strategies strategies = strategies();
		if (strategies.idempotentMethods().isEmpty() || CorsUtils.isPreFlightRequest(exchange.getRequest())) {
			return chain.filter(exchange);
		}
		return Flux.fromIterable(strategies.handlerMappings())
			.concatMap((mapping) -> mapping.getHandlerInternal(exchange))
			.next()
			.filter((handler) -> strategies.idempotentMethods().contains(handler.getMethod()))
			.map(Optional::of)
			// No handler, or none that matches (405, 415, ...): the dispatcher answers
			.onErrorResume((ex) -> Mono.just(Optional.empty()))
			.defaultIfEmpty(Optional.empty())
			.flatMap((handler) -> handler.isPresent() ? handle(exchange, chain, handler.get(), strategies)
					: chain.filter(exchange));
	}

	private Mono<Void> handle(ServerWebExchange exchange, WebFilterChain chain, HandlerMethod handler,
			Strategies strategies) {
		IdempotentRequestAttribute attribute = this.attributeSource.getAttribute(handler.getMethod());
		if (attribute == null) {
			return chain.filter(exchange);
		}
		String handlerName = IdempotencyPolicy.handlerName(handler.getBeanType(), handler.getMethod().getName());
		String key;
		try {
			key = this.policy.key(exchange.getRequest().getHeaders().get(IdempotentRequestInterceptor.IDEMPOTENCY_KEY));
		}
		catch (InvalidIdempotencyKeyException ex) {
			return reject(exchange, handlerName, ex, strategies);
		}
		if (key == null) {
			return attribute.required() ? reject(exchange, handlerName, IdempotencyPolicy.missingKey(), strategies)
					: chain.filter(exchange);
		}
		AtomicBoolean proceeding = new AtomicBoolean();
		return buffer(exchange, strategies).zipWith(principalName(exchange)).flatMap((buffered) -> {
			String lockKey = IdempotencyPolicy.lockKey(buffered.getT2().orElse(null), key);
			ReactiveLockOperations locks = this.locks.get();
			return Mono.usingWhen(acquire(locks, lockKey),
					(lease) -> findResult(locks, lockKey).flatMap((kept) -> kept.isPresent()
							? replay(exchange, handlerName, StoredResponse.fromBytes(kept.get()),
									buffered.getT1().fingerprint())
							: proceed(buffered.getT1(), chain, handlerName, lease, attribute.retention(), proceeding)),
					(lease) -> release(locks, lease), (lease, ex) -> release(locks, lease),
					(lease) -> release(locks, lease));
		})
			.onErrorResume((ex) -> !proceeding.get() && IdempotencyPolicy.outcomeOf(ex) != null,
					(ex) -> reject(exchange, handlerName, ex, strategies).then(Mono.empty()))
			// The response goes out once the lock is released, so that a client that
			// has it and retries at once gets the kept response, never a conflict
			.flatMap(Function.identity());
	}

	private Mono<Lease> acquire(ReactiveLockOperations locks, String lockKey) {
		return locks.tryAcquire(lockKey, getLockOptions())
			.flatMap((attempt) -> attempt.isAcquired() ? Mono.just(attempt.lease())
					: Mono.error(new IdempotentRequestInProgressException(attempt.retryAfter())));
	}

	private static Mono<Optional<byte[]>> findResult(ReactiveLockOperations locks, String lockKey) {
		return locks.findResult(lockKey).map(Optional::of).defaultIfEmpty(Optional.empty());
	}

	private Mono<Void> release(ReactiveLockOperations locks, Lease lease) {
		return locks.release(lease).onErrorResume((ex) -> {
			logger.warn("Could not release the lock of an idempotent request; it expires with its time-to-live", ex);
			return Mono.empty();
		}).then();
	}

	/**
	 * Check a kept response against the request, and return how to send it.
	 */
	private Mono<Mono<Void>> replay(ServerWebExchange exchange, String handlerName, StoredResponse stored,
			byte[] fingerprint) {
		if (!stored.matches(fingerprint)) {
			return Mono.error(new IdempotencyKeyReusedException());
		}
		notify(handlerName, Outcome.REPLAYED);
		return Mono.just(Mono.defer(() -> send(exchange, stored)));
	}

	private static Mono<Void> send(ServerWebExchange exchange, StoredResponse stored) {
		ServerHttpResponse response = exchange.getResponse();
		response.setStatusCode(HttpStatusCode.valueOf(stored.status()));
		HttpHeaders headers = response.getHeaders();
		for (Map.Entry<String, String> header : IdempotencyPolicy.replayedHeaders(stored)) {
			if (HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(header.getKey())) {
				headers.set(HttpHeaders.CONTENT_TYPE, header.getValue());
			}
			else {
				headers.add(header.getKey(), header.getValue());
			}
		}
		headers.set(IdempotentRequestInterceptor.IDEMPOTENT_REPLAYED, "true");
		headers.setContentLength(stored.body().length);
		return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(stored.body())));
	}

	/**
	 * Run the request down the filter chain, keep its response, and return how to send
	 * it.
	 */
	private Mono<Mono<Void>> proceed(BufferedExchange buffered, WebFilterChain chain, String handlerName, Lease lease,
			Duration retention, AtomicBoolean proceeding) {
		CapturingResponse capturing = new CapturingResponse(buffered.getResponse());
		ServerWebExchange running = buffered.mutate().response(capturing).build();
		notify(handlerName, Outcome.EXECUTED);
		proceeding.set(true);
		return chain.filter(running)
			.then(Mono.defer(() -> keep(capturing, buffered.fingerprint(), lease, retention)))
			.thenReturn(Mono.defer(capturing::send));
	}

	private Mono<Void> keep(CapturingResponse response, byte[] fingerprint, Lease lease, Duration retention) {
		HttpStatusCode statusCode = response.getStatusCode();
		int status = (statusCode != null) ? statusCode.value() : 200;
		if (!this.policy.isKept(status)) {
			return Mono.empty();
		}
		HttpHeaders headers = response.getHeaders();
		StoredResponse stored = this.policy.capture(fingerprint, status, headers.getFirst(HttpHeaders.CONTENT_TYPE),
				headers::get, response.body());
		return this.locks.get().putResult(lease, stored.toBytes(), retention).doOnNext((kept) -> {
			if (!kept) {
				logger.warn("Response of an idempotent request not kept: its lock expired before the request "
						+ "completed; a retry will run the request again");
			}
		}).onErrorResume((ex) -> {
			logger.warn("Response of an idempotent request not kept; a retry will run the request again", ex);
			return Mono.empty();
		}).then();
	}

	/**
	 * Answer a rejection as the dispatcher answers a handler's exception: through the
	 * controller advice's exception handlers, then the result handlers.
	 */
	private Mono<Void> reject(ServerWebExchange exchange, String handlerName, Throwable ex, Strategies strategies) {
		Outcome outcome = IdempotencyPolicy.outcomeOf(ex);
		if (outcome != null) {
			notify(handlerName, outcome);
		}
		Mono<HandlerResult> result = Mono.error(ex);
		for (DispatchExceptionHandler exceptionHandler : strategies.exceptionHandlers()) {
			result = result.onErrorResume((failure) -> exceptionHandler.handleError(exchange, failure));
		}
		return result.flatMap((handled) -> {
			for (HandlerResultHandler resultHandler : strategies.resultHandlers()) {
				if (resultHandler.supports(handled)) {
					return resultHandler.handleResult(exchange, handled);
				}
			}
			return Mono.error(new IllegalStateException("No HandlerResultHandler for " + handled.getReturnValue()));
		});
	}

	private void notify(String handlerName, Outcome outcome) {
		IdempotentRequestListener listener = this.listener;
		if (listener != null) {
			listener.requestHandled(handlerName, outcome);
		}
	}

	private static Mono<Optional<String>> principalName(ServerWebExchange exchange) {
		return exchange.getPrincipal()
			.map((principal) -> Optional.ofNullable(principalNameOf(principal)))
			.defaultIfEmpty(Optional.empty());
	}

	private static @Nullable String principalNameOf(Principal principal) {
		return principal.getName();
	}

	/**
	 * Buffer the request body, within the limit, and compute the request's fingerprint.
	 */
	private Mono<BufferedExchange> buffer(ServerWebExchange exchange, Strategies strategies) {
		ServerHttpRequest request = exchange.getRequest();
		long maxBodySize = this.policy.maxBodySize();
		if (request.getHeaders().getContentLength() > maxBodySize) {
			return Mono.error(new IdempotentRequestTooLargeException(maxBodySize));
		}
		int limit = (int) Math.min(maxBodySize, Integer.MAX_VALUE - 8);
		return DataBufferUtils.join(request.getBody(), limit).map((joined) -> {
			try {
				byte[] bytes = new byte[joined.readableByteCount()];
				joined.read(bytes);
				return bytes;
			}
			finally {
				DataBufferUtils.release(joined);
			}
		})
			.onErrorMap(DataBufferLimitException.class, (ex) -> new IdempotentRequestTooLargeException(maxBodySize))
			.defaultIfEmpty(new byte[0])
			.flatMap((body) -> {
				BufferedExchange buffered = new BufferedExchange(exchange, body, strategies.codecs());
				return fingerprint(buffered, body).map((fingerprint) -> {
					buffered.fingerprint = fingerprint;
					return buffered;
				});
			});
	}

	private static Mono<byte[]> fingerprint(BufferedExchange exchange, byte[] body) {
		ServerHttpRequest request = exchange.getRequest();
		String method = request.getMethod().name();
		String path = request.getURI().getRawPath();
		String query = request.getURI().getRawQuery();
		String contentType = request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE);
		if (!RequestFingerprint.isForm(contentType)) {
			return Mono.just(RequestFingerprint.ofBody(method, path, query, contentType, body));
		}
		return exchange.getFormData()
			.map((form) -> RequestFingerprint.ofForm(method, path, query, contentType,
					parameters(request.getQueryParams(), form)));
	}

	/**
	 * The parameters of a form-encoded request as a servlet container gives them: query
	 * parameters first, then form parameters, the values of a name in order, a missing
	 * value as an empty string.
	 */
	static Map<String, String[]> parameters(MultiValueMap<String, String> query, MultiValueMap<String, String> form) {
		Map<String, List<String>> merged = new LinkedHashMap<>();
		query.forEach((name, values) -> merged.computeIfAbsent(name, (n) -> new ArrayList<>()).addAll(values));
		form.forEach((name, values) -> merged.computeIfAbsent(name, (n) -> new ArrayList<>()).addAll(values));
		Map<String, String[]> parameters = new LinkedHashMap<>();
		merged.forEach((name, values) -> parameters.put(name,
				values.stream().map((value) -> (value != null) ? value : "").toArray(String[]::new)));
		return parameters;
	}

	private Strategies strategies() {
		Strategies strategies = this.strategies;
		if (strategies == null) {
			synchronized (this) {
				strategies = this.strategies;
				if (strategies == null) {
					strategies = Strategies.of(this.applicationContext, this.attributeSource);
					this.strategies = strategies;
				}
			}
		}
		return strategies;
	}

	/**
	 * What the filter finds once in the application context.
	 */
	private record Strategies(List<RequestMappingHandlerMapping> handlerMappings,
			List<HandlerMethod> idempotentHandlers, Set<Method> idempotentMethods,
			List<DispatchExceptionHandler> exceptionHandlers, List<HandlerResultHandler> resultHandlers,
			ServerCodecConfigurer codecs) {

		static Strategies of(@Nullable ApplicationContext context, IdempotentRequestAttributeSource attributeSource) {
			if (context == null) {
				return new Strategies(List.of(), List.of(), Set.of(), List.of(), List.of(),
						ServerCodecConfigurer.create());
			}
			List<RequestMappingHandlerMapping> mappings = beans(context, RequestMappingHandlerMapping.class);
			List<HandlerMethod> idempotent = mappings.stream()
				.flatMap((mapping) -> mapping.getHandlerMethods().values().stream())
				.filter((handler) -> attributeSource.getAttribute(handler.getMethod()) != null)
				.distinct()
				.toList();
			List<DispatchExceptionHandler> exceptionHandlers = beans(context, HandlerAdapter.class).stream()
				.filter(DispatchExceptionHandler.class::isInstance)
				.map(DispatchExceptionHandler.class::cast)
				.toList();
			ServerCodecConfigurer codecs = context.getBeanProvider(ServerCodecConfigurer.class)
				.getIfUnique(ServerCodecConfigurer::create);
			return new Strategies(mappings, idempotent,
					Set.copyOf(idempotent.stream().map(HandlerMethod::getMethod).toList()), exceptionHandlers,
					beans(context, HandlerResultHandler.class), codecs);
		}

		private static <T> List<T> beans(ApplicationContext context, Class<T> type) {
			List<T> beans = new ArrayList<>(
					BeanFactoryUtils.beansOfTypeIncludingAncestors(context, type, true, false).values());
			AnnotationAwareOrderComparator.sort(beans);
			return List.copyOf(beans);
		}

	}

	/**
	 * An exchange whose request body was read in full: the handler reads the buffered
	 * copy, and form and multipart data are read from it with the application's codecs.
	 */
	private static final class BufferedExchange extends ServerWebExchangeDecorator {

		private final ServerHttpRequest request;

		private final Mono<MultiValueMap<String, String>> formData;

		private final Mono<MultiValueMap<String, Part>> multipartData;

		private byte[] fingerprint = new byte[0];

		BufferedExchange(ServerWebExchange exchange, byte[] body, ServerCodecConfigurer codecs) {
			super(exchange);
			this.request = new ServerHttpRequestDecorator(exchange.getRequest()) {

				@Override
				public Flux<DataBuffer> getBody() {
					return (body.length != 0)
							? Flux.defer(() -> Flux.just(exchange.getResponse().bufferFactory().wrap(body)))
							: Flux.empty();
				}

			};
			MediaType contentType = contentType(this.request);
			this.formData = (contentType != null && MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(contentType))
					? read(codecs, FORM_DATA_TYPE, MediaType.APPLICATION_FORM_URLENCODED, exchange, this.request)
					: exchange.getFormData();
			this.multipartData = (contentType != null && MediaType.MULTIPART_FORM_DATA.isCompatibleWith(contentType))
					? read(codecs, MULTIPART_DATA_TYPE, MediaType.MULTIPART_FORM_DATA, exchange, this.request)
					: exchange.getMultipartData();
		}

		private static @Nullable MediaType contentType(ServerHttpRequest request) {
			try {
				return request.getHeaders().getContentType();
			}
			catch (RuntimeException ex) {
				return null;
			}
		}

		@SuppressWarnings("unchecked")
		private static <T> Mono<T> read(ServerCodecConfigurer codecs, ResolvableType type, MediaType mediaType,
				ServerWebExchange exchange, ServerHttpRequest request) {
			for (HttpMessageReader<?> reader : codecs.getReaders()) {
				if (reader.canRead(type, mediaType)) {
					return ((HttpMessageReader<T>) reader)
						.readMono(type, request, Hints.from(Hints.LOG_PREFIX_HINT, exchange.getLogPrefix()))
						.cache();
				}
			}
			return Mono.error(new IllegalStateException("No HttpMessageReader for " + mediaType));
		}

		byte[] fingerprint() {
			return this.fingerprint;
		}

		@Override
		public ServerHttpRequest getRequest() {
			return this.request;
		}

		@Override
		public Mono<MultiValueMap<String, String>> getFormData() {
			return this.formData;
		}

		@Override
		public Mono<MultiValueMap<String, Part>> getMultipartData() {
			return this.multipartData;
		}

	}

	/**
	 * A response held back until the exchange completes: its status and headers are set
	 * on the response it decorates, but its body is collected, and nothing is sent before
	 * {@link #send()}, once the response is kept and the lock released.
	 */
	private static final class CapturingResponse extends ServerHttpResponseDecorator {

		private final ByteArrayOutputStream body = new ByteArrayOutputStream();

		CapturingResponse(ServerHttpResponse delegate) {
			super(delegate);
		}

		@Override
		public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
			return Flux.from(body).doOnNext((buffer) -> {
				try {
					byte[] bytes = new byte[buffer.readableByteCount()];
					buffer.read(bytes);
					synchronized (this.body) {
						this.body.writeBytes(bytes);
					}
				}
				finally {
					DataBufferUtils.release(buffer);
				}
			}).then();
		}

		@Override
		public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
			return writeWith(Flux.from(body).concatMap(Flux::from));
		}

		@Override
		public Mono<Void> setComplete() {
			return Mono.empty();
		}

		@Override
		public boolean isCommitted() {
			return false;
		}

		byte[] body() {
			synchronized (this.body) {
				return this.body.toByteArray();
			}
		}

		Mono<Void> send() {
			byte[] bytes = body();
			ServerHttpResponse response = getDelegate();
			return (bytes.length != 0)
					? response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(bytes)))
					: response.setComplete();
		}

	}

}
