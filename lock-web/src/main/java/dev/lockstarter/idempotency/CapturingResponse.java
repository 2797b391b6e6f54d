package dev.lockstarter.idempotency;

import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;

/**
 * A WebFlux response held back until the exchange completes: its status and headers are
 * set on the response it decorates, but its body is collected, up to a bound, and nothing
 * is sent before {@link #send()}, once the response is kept and the lock released. A body
 * that grows past the bound is not kept: what was collected is written to the client, and
 * the rest streams through as it comes, so no more than the bound is held.
 */
final class CapturingResponse extends ServerHttpResponseDecorator {

	private final BoundedBuffer body;

	private final AtomicLong size = new AtomicLong();

	private volatile boolean streamed;

	/** The buffer that passed the bound, the first one to stream. */
	private volatile @Nullable DataBuffer overflow;

	CapturingResponse(ServerHttpResponse delegate, long maxSize) {
		super(delegate);
		this.body = new BoundedBuffer(maxSize);
	}

	@Override
	public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
		if (this.streamed) {
			return getDelegate().writeWith(Flux.from(body).doOnNext(this::count));
		}
		// Two windows at most: the buffers that fit within the bound, collected, then,
		// from the one that passes it, the rest, streamed
		return Flux.<DataBuffer>from(body)
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release)
			// One buffer ahead: nothing piles up in a window's queue
			.windowUntil(this::passesTheBound, true, 1)
			.concatMap((window) -> window.switchOnFirst((first, buffers) -> {
				DataBuffer buffer = first.get();
				if (buffer != null && buffer == this.overflow) {
					return stream(buffers);
				}
				return buffers.doOnNext(this::collect).then();
			}))
			.then();
	}

	/**
	 * Return whether a buffer, the next to arrive, makes the body pass the bound (once).
	 */
	private boolean passesTheBound(DataBuffer buffer) {
		synchronized (this.body) {
			if (this.overflow != null) {
				return false;
			}
			long arrived = this.size.addAndGet(buffer.readableByteCount());
			if (arrived > this.body.capacityLimit()) {
				this.overflow = buffer;
				return true;
			}
			return false;
		}
	}

	private void collect(DataBuffer buffer) {
		try {
			byte[] bytes = new byte[buffer.readableByteCount()];
			buffer.read(bytes);
			synchronized (this.body) {
				this.body.write(bytes, 0, bytes.length);
			}
		}
		finally {
			DataBufferUtils.release(buffer);
		}
	}

	private Mono<Void> stream(Flux<DataBuffer> rest) {
		byte[] collected;
		synchronized (this.body) {
			collected = this.body.toByteArray();
			this.body.clear();
			this.streamed = true;
		}
		Flux<DataBuffer> first = (collected.length != 0)
				? Flux.defer(() -> Flux.just(getDelegate().bufferFactory().wrap(collected))) : Flux.empty();
		// The buffer that passed the bound was counted when it arrived
		Flux<DataBuffer> counted = rest.index()
			.map((indexed) -> (indexed.getT1() == 0) ? indexed.getT2() : count(indexed.getT2()));
		return getDelegate().writeWith(Flux.concat(first, counted));
	}

	private DataBuffer count(DataBuffer buffer) {
		this.size.addAndGet(buffer.readableByteCount());
		return buffer;
	}

	@Override
	public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
		return writeWith(Flux.from(body).concatMap(Flux::from));
	}

	@Override
	public Mono<Void> setComplete() {
		return this.streamed ? getDelegate().setComplete() : Mono.empty();
	}

	@Override
	public boolean isCommitted() {
		return this.streamed && getDelegate().isCommitted();
	}

	/**
	 * Return whether the body passed the bound and was streamed to the client, so it
	 * cannot be kept.
	 * @return whether the body outgrew the bound
	 */
	boolean isStreamed() {
		return this.streamed;
	}

	/**
	 * Return the size of the body written so far, collected or streamed.
	 * @return the size, in bytes
	 */
	long bodySize() {
		return this.size.get();
	}

	/**
	 * Return the body collected so far.
	 * @return a copy of the body, empty if it was streamed
	 */
	byte[] body() {
		synchronized (this.body) {
			return this.body.toByteArray();
		}
	}

	/**
	 * Send the collected body, with the status and headers already set, to the client,
	 * unless it was streamed.
	 * @return completes when the body is written
	 */
	Mono<Void> send() {
		if (this.streamed) {
			return Mono.empty();
		}
		byte[] bytes = body();
		ServerHttpResponse response = getDelegate();
		return (bytes.length != 0) ? response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(bytes)))
				: response.setComplete();
	}

}
