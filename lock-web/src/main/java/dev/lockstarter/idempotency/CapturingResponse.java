package dev.lockstarter.idempotency;

import java.io.ByteArrayOutputStream;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;

/**
 * A WebFlux response held back until the exchange completes: its status and headers are
 * set on the response it decorates, but its body is collected, and nothing is sent before
 * {@link #send()}, once the response is kept and the lock released.
 */
final class CapturingResponse extends ServerHttpResponseDecorator {

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

	/**
	 * Return the body collected so far.
	 * @return a copy of the body
	 */
	byte[] body() {
		synchronized (this.body) {
			return this.body.toByteArray();
		}
	}

	/**
	 * Send the collected body, with the status and headers already set, to the client.
	 * @return completes when the body is written
	 */
	Mono<Void> send() {
		byte[] bytes = body();
		ServerHttpResponse response = getDelegate();
		return (bytes.length != 0) ? response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(bytes)))
				: response.setComplete();
	}

}
