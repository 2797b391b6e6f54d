package dev.lockstarter.autoconfigure.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import dev.lockstarter.idempotency.IdempotentRequestListener;
import org.springframework.util.Assert;

/**
 * The meter of {@link dev.lockstarter.idempotency.IdempotentRequest} handlers:
 * {@code lock.idempotent.requests}, a counter tagged with the {@code handler}
 * ({@code SimpleClassName.method}), the {@code store} and the {@code outcome}
 * ({@code executed}, {@code replayed}, {@code in-flight}, {@code key-reused},
 * {@code invalid}, {@code store-error}, {@code ttl-too-short}). Never tagged with the
 * {@code Idempotency-Key}.
 *
 * @since 0.1.0
 */
public final class IdempotentRequestMeters implements IdempotentRequestListener {

	private final String store;

	private final MeterProvider<Counter> requests;

	/**
	 * Create the meter.
	 * @param registry the registry
	 * @param store the kind of store, the {@code store} tag
	 */
	public IdempotentRequestMeters(MeterRegistry registry, String store) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(store, "'store' must not be null");
		this.store = store;
		this.requests = Counter.builder("lock.idempotent.requests")
			.description("Requests to @IdempotentRequest handlers, by outcome")
			.withRegistry(registry);
	}

	@Override
	public void requestHandled(String handler, Outcome outcome) {
		this.requests.withTags(Tags.of("handler", handler, "store", this.store, "outcome", outcome.tagValue()))
			.increment();
	}

}
