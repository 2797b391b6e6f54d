package dev.lockstarter.autoconfigure.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import dev.lockstarter.interceptor.ExclusiveJobListener;
import org.springframework.util.Assert;

/**
 * The meter of {@link dev.lockstarter.annotation.ExclusiveJob} methods:
 * {@code lock.jobs}, a counter of ticks tagged with the job's lock {@code name}, the
 * {@code store} and the {@code outcome} on this instance ({@code ran}, {@code failed},
 * {@code skipped} when another instance held the lock, {@code store-error} when the store
 * could not be reached and the job did not run, {@code ttl-too-short} when the store
 * confirmed the lock after its time-to-live and the job did not run). Summed over the
 * instances, {@code ran} plus {@code failed} is the number of ticks that ran.
 *
 * @since 0.1.0
 */
public final class ExclusiveJobMeters implements ExclusiveJobListener {

	private final String store;

	private final MeterProvider<Counter> ticks;

	/**
	 * Create the meter.
	 * @param registry the registry
	 * @param store the kind of store, the {@code store} tag
	 */
	public ExclusiveJobMeters(MeterRegistry registry, String store) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(store, "'store' must not be null");
		this.store = store;
		this.ticks = Counter.builder("lock.jobs")
			.description("Ticks of @ExclusiveJob methods on this instance, by outcome")
			.withRegistry(registry);
	}

	@Override
	public void tickFinished(String name, Outcome outcome) {
		this.ticks.withTags(Tags.of("name", name, "store", this.store, "outcome", outcome.tagValue())).increment();
	}

}
