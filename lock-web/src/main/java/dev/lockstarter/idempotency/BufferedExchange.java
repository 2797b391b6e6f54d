package dev.lockstarter.idempotency;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;

/**
 * A WebFlux exchange whose request body was read in full, without blocking, within the
 * largest accepted size, with the request's fingerprint: the handler reads the buffered
 * copy, and form and multipart data are read from it with the application's codecs.
 */
final class BufferedExchange extends ServerWebExchangeDecorator {

	private static final ResolvableType FORM_DATA_TYPE = ResolvableType.forClassWithGenerics(MultiValueMap.class,
			String.class, String.class);

	private static final ResolvableType MULTIPART_DATA_TYPE = ResolvableType.forClassWithGenerics(MultiValueMap.class,
			String.class, Part.class);

	private final ServerHttpRequest request;

	private final Mono<MultiValueMap<String, String>> formData;

	private final Mono<MultiValueMap<String, Part>> multipartData;

	private byte[] fingerprint = new byte[0];

	private BufferedExchange(ServerWebExchange exchange, byte[] body, ServerCodecConfigurer codecs) {
		super(exchange);
		this.request = new ServerHttpRequestDecorator(exchange.getRequest()) {

			@Override
			public Flux<DataBuffer> getBody() {
				return (body.length != 0)
						? Flux.defer(() -> Flux.just(exchange.getResponse().bufferFactory().wrap(body))) : Flux.empty();
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

	/**
	 * Buffer the request body of an exchange, within the limit, and compute the request's
	 * fingerprint: SHA-256 over the method, raw path, raw query, content type and body;
	 * for a form-encoded request, over the query and form parameters, merged as a servlet
	 * container merges them, so that the fingerprint is the one Spring MVC computes for
	 * the same request.
	 * @param exchange the exchange
	 * @param maxBodySize the largest accepted body, in bytes
	 * @param codecs the codecs that read form and multipart data
	 * @return the buffered exchange, or an {@link IdempotentRequestTooLargeException}
	 */
	static Mono<BufferedExchange> buffer(ServerWebExchange exchange, long maxBodySize, ServerCodecConfigurer codecs) {
		ServerHttpRequest request = exchange.getRequest();
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
				BufferedExchange buffered = new BufferedExchange(exchange, body, codecs);
				return buffered.fingerprint(body).map((fingerprint) -> {
					buffered.fingerprint = fingerprint;
					return buffered;
				});
			});
	}

	private Mono<byte[]> fingerprint(byte[] body) {
		ServerHttpRequest request = getRequest();
		String method = request.getMethod().name();
		String path = request.getURI().getRawPath();
		String query = request.getURI().getRawQuery();
		String contentType = request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE);
		if (!RequestFingerprint.isForm(contentType)) {
			return Mono.just(RequestFingerprint.ofBody(method, path, query, contentType, body));
		}
		return getFormData().map((form) -> RequestFingerprint.ofForm(method, path, query, contentType,
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

	/**
	 * Return the request's fingerprint.
	 * @return the SHA-256 fingerprint, 32 bytes
	 */
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
