package dev.lockstarter.idempotency;

import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.lockstarter.core.Internal;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.ReactiveLockOperations;
import dev.lockstarter.core.ReactiveLockResults;
import dev.lockstarter.idempotency.IdempotentRequestListener.Outcome;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.Assert;
import org.springframework.web.cors.reactive.CorsUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResultHandler;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
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
 * Kept responses are read and written through {@link ReactiveLockResults#findResult} and
 * {@link ReactiveLockResults#putResult}, which never block the thread of the exchange (on
 * Redis and in memory they do not block at all; other stores are called on a
 * bounded-elastic scheduler). The handler may produce its response in any way
 * ({@code Mono}, {@code Flux}, Kotlin {@code suspend} functions, plain values): only the
 * response written counts. It is held back, buffered, until it is kept and the lock
 * released (as the servlet side holds it until its request completes), so that a client
 * that has it and retries at once gets the kept response. A body that grows past the
 * {@linkplain #setMaxResponseSize(long) largest kept response} is not held further nor
 * kept: it streams to the client, and a retry runs the request again.
 *
 * @since 0.1.0
 */
@Internal
public class IdempotentRequestWebFilter extends IdempotentRequestSupport
		implements WebFilter, Ordered, ApplicationContextAware, SmartInitializingSingleton {

	/**
	 * The default order: {@code Ordered.LOWEST_PRECEDENCE - 100}, late among web filters,
	 * so that security and other filters run first.
	 */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private static final Log logger = LogFactory.getLog(IdempotentRequestWebFilter.class);

	private final Supplier<ReactiveLockOperations> locks;

	private int order = DEFAULT_ORDER;

	private @Nullable ApplicationContext applicationContext;

	private volatile @Nullable WebFluxStrategies strategies;

	/**
	 * Create a new filter.
	 * @param locks the reactive lock operations, resolved on first use; their store must
	 * keep results
	 * @param lockOptions the options of the lock held while a request runs; waiting
	 * options are ignored: a request never waits for another with the same key
	 * @param retention how long a response is kept for replays when its method sets none
	 */
	public IdempotentRequestWebFilter(Supplier<ReactiveLockOperations> locks, Supplier<LockOptions> lockOptions,
			Duration retention) {
		super(lockOptions, retention, false);
		Assert.notNull(locks, "'locks' must not be null");
		this.locks = locks;
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
	 * Return the annotated handler methods of the application context's
	 * {@link RequestMappingHandlerMapping}s, found once.
	 * @return the handler methods, empty if none is annotated or the filter is not in an
	 * application context
	 * @throws IllegalStateException if a declaration is invalid
	 */
	public List<HandlerMethod> getIdempotentHandlerMethods() {
		return strategies().handlers().handlers();
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		WebFluxStrategies strategies = strategies();
		if (strategies.handlers().isEmpty() || CorsUtils.isPreFlightRequest(exchange.getRequest())) {
			return chain.filter(exchange);
		}
		return strategies.handlers()
			.find(exchange)
			.flatMap((handler) -> handler.isPresent() ? handle(exchange, chain, handler.get(), strategies)
					: chain.filter(exchange));
	}

	/**
	 * Check the key, buffer the request and take the lock, then either replay the kept
	 * response or run the request and keep its response. The response goes out once the
	 * lock is released, so that a client that has it and retries at once gets the kept
	 * response, never a conflict.
	 */
	private Mono<Void> handle(ServerWebExchange exchange, WebFilterChain chain, HandlerMethod handler,
			WebFluxStrategies strategies) {
		IdempotentRequestAttribute attribute = attributeOf(handler.getMethod());
		if (attribute == null) {
			return chain.filter(exchange);
		}
		String key;
		try {
			key = policy().key(exchange.getRequest().getHeaders().get(IdempotentRequestInterceptor.IDEMPOTENCY_KEY));
		}
		catch (InvalidIdempotencyKeyException ex) {
			return reject(exchange, handler, ex, strategies);
		}
		if (key == null) {
			return attribute.required() ? reject(exchange, handler, IdempotencyPolicy.missingKey(), strategies)
					: chain.filter(exchange);
		}
		AtomicBoolean proceeding = new AtomicBoolean();
		return BufferedExchange.buffer(exchange, policy().maxBodySize(), strategies.codecs())
			.zipWith(principalName(exchange))
			.flatMap((buffered) -> underLock(buffered.getT1(), chain, handler, attribute,
					IdempotencyPolicy.lockKey(buffered.getT2().orElse(null), key), proceeding))
			.onErrorResume((ex) -> !proceeding.get() && IdempotencyPolicy.outcomeOf(ex) != null,
					(ex) -> reject(exchange, handler, ex, strategies).then(Mono.empty()))
			.flatMap(Function.identity());
	}

	/**
	 * Hold the request's lock while the kept response is checked, or while the request
	 * runs and its response is kept; release it on completion, error and cancellation.
	 * @return how to send the response, once the lock is released
	 */
	private Mono<Mono<Void>> underLock(BufferedExchange exchange, WebFilterChain chain, HandlerMethod handler,
			IdempotentRequestAttribute attribute, String lockKey, AtomicBoolean proceeding) {
		ReactiveIdempotencyStore store = new ReactiveIdempotencyStore(this.locks.get(), policy());
		return Mono.usingWhen(store.acquire(lockKey, getLockOptions()), (lease) -> store.findResponse(lockKey)
			.flatMap((kept) -> kept.isPresent() ? replay(exchange, handler, StoredResponse.fromBytes(kept.get()))
					: proceed(exchange, chain, handler, proceeding,
							(response) -> store.keep(lease, response, exchange.fingerprint(), attribute.retention()))),
				store::release, (lease, ex) -> store.release(lease), store::release);
	}

	/**
	 * Check a kept response against the request, and return how to send it.
	 */
	private Mono<Mono<Void>> replay(BufferedExchange exchange, HandlerMethod handler, StoredResponse stored) {
		if (!stored.matches(exchange.fingerprint())) {
			return Mono.error(new IdempotencyKeyReusedException());
		}
		notifyListener(handler, Outcome.REPLAYED);
		return Mono.just(Mono.defer(() -> send(exchange.getResponse(), stored)));
	}

	private static Mono<Void> send(ServerHttpResponse response, StoredResponse stored) {
		HttpHeaders headers = response.getHeaders();
		ResponseReplay.writeHead(stored, new ResponseReplay.Head() {

			@Override
			public void status(int status) {
				response.setStatusCode(HttpStatusCode.valueOf(status));
			}

			@Override
			public void contentType(String contentType) {
				headers.set(HttpHeaders.CONTENT_TYPE, contentType);
			}

			@Override
			public void addHeader(String name, String value) {
				headers.add(name, value);
			}

			@Override
			public void setHeader(String name, String value) {
				headers.set(name, value);
			}

			@Override
			public void contentLength(int length) {
				headers.setContentLength(length);
			}

		});
		return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(stored.body())));
	}

	/**
	 * Run the request down the filter chain, keep its response, and return how to send
	 * it.
	 */
	private Mono<Mono<Void>> proceed(BufferedExchange buffered, WebFilterChain chain, HandlerMethod handler,
			AtomicBoolean proceeding, Function<CapturingResponse, Mono<Void>> keep) {
		CapturingResponse capturing = new CapturingResponse(buffered.getResponse(), policy().maxResponseSize());
		ServerWebExchange running = buffered.mutate().response(capturing).build();
		notifyListener(handler, Outcome.EXECUTED);
		proceeding.set(true);
		return chain.filter(running).then(Mono.defer(() -> {
			if (capturing.isStreamed()) {
				logger.warn(policy().tooLargeToKeep(handlerName(handler), capturing.bodySize(),
						"it was sent in full, and a retry will run the request again"));
				return Mono.empty();
			}
			return keep.apply(capturing);
		})).thenReturn(Mono.defer(capturing::send));
	}

	private Mono<Void> reject(ServerWebExchange exchange, HandlerMethod handler, Throwable ex,
			WebFluxStrategies strategies) {
		Outcome outcome = IdempotencyPolicy.outcomeOf(ex);
		if (outcome != null) {
			notifyListener(handler, outcome);
		}
		return strategies.rejections().dispatch(exchange, ex);
	}

	private static Mono<Optional<String>> principalName(ServerWebExchange exchange) {
		return exchange.getPrincipal()
			.map((principal) -> Optional.ofNullable(principalNameOf(principal)))
			.defaultIfEmpty(Optional.empty());
	}

	private static @Nullable String principalNameOf(Principal principal) {
		return principal.getName();
	}

	private WebFluxStrategies strategies() {
		WebFluxStrategies strategies = this.strategies;
		if (strategies == null) {
			synchronized (this) {
				strategies = this.strategies;
				if (strategies == null) {
					strategies = WebFluxStrategies.of(this.applicationContext, attributeSource());
					this.strategies = strategies;
				}
			}
		}
		return strategies;
	}

}
