package dev.lockstarter.autoconfigure.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import dev.lockstarter.core.FinishedAttempt;
import dev.lockstarter.core.HeldLock;
import dev.lockstarter.core.LockListener;
import org.springframework.util.Assert;

/**
 * The meters of {@link dev.lockstarter.core.LockTemplate} and the
 * {@link dev.lockstarter.annotation.ExclusiveRequest} interceptor. Every meter is tagged
 * with the lock's {@code name} and the {@code store}; none with a key, which carries user
 * data and would make a time series per value.
 * <ul>
 * <li>{@code lock.acquisitions} (timer, tag {@code outcome}: {@code acquired},
 * {@code conflict}, {@code wait-timeout}, {@code store-error}, {@code ttl-too-short},
 * {@code interrupted}): each acquisition, waiting included; {@code ttl-too-short} counts
 * the grants confirmed after the lock's time-to-live, apart from the store's
 * failures;</li>
 * <li>{@code lock.waits} (timer, tag {@code outcome}): the acquisitions that found the
 * lock held and waited or retried;</li>
 * <li>{@code lock.held} (timer, tag {@code outcome}: {@code released}; {@code expired}
 * when the release found the lock gone or failed, so that the lock expires with its
 * time-to-live; or {@code lost}): how long locks were held;</li>
 * <li>{@code lock.held.active} (long task timer): the locks held now, and for how
 * long;</li>
 * <li>{@code lock.renewals} (counter, tag {@code outcome}: {@code renewed},
 * {@code lost}): renewals of held locks;</li>
 * <li>{@code lock.lost} (counter): locks lost while held;</li>
 * <li>{@code lock.results.shared} (counter): single-flight callers that received the
 * outcome of the run they waited for.</li>
 * </ul>
 *
 * @since 0.1.0
 */
public final class LockMeters implements LockListener {

	private final String store;

	private final MeterProvider<Timer> acquisitions;

	private final MeterProvider<Timer> waits;

	private final MeterProvider<Timer> held;

	private final MeterProvider<LongTaskTimer> active;

	private final MeterProvider<Counter> renewals;

	private final MeterProvider<Counter> lost;

	private final MeterProvider<Counter> shared;

	private final Map<HeldLock, LongTaskTimer.Sample> holding = new ConcurrentHashMap<>();

	/**
	 * Create the meters.
	 * @param registry the registry
	 * @param store the kind of store, the {@code store} tag
	 */
	public LockMeters(MeterRegistry registry, String store) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(store, "'store' must not be null");
		this.store = store;
		this.acquisitions = Timer.builder("lock.acquisitions")
			.description("Lock acquisitions, waiting included")
			.withRegistry(registry);
		this.waits = Timer.builder("lock.waits")
			.description("Lock acquisitions that found the lock held and waited or retried")
			.withRegistry(registry);
		this.held = Timer.builder("lock.held").description("Time locks were held").withRegistry(registry);
		this.active = LongTaskTimer.builder("lock.held.active")
			.description("Locks held now by this instance")
			.withRegistry(registry);
		this.renewals = Counter.builder("lock.renewals").description("Renewals of held locks").withRegistry(registry);
		this.lost = Counter.builder("lock.lost").description("Locks lost while held").withRegistry(registry);
		this.shared = Counter.builder("lock.results.shared")
			.description("Single-flight callers that received the outcome of the run they waited for")
			.withRegistry(registry);
	}

	@Override
	public void acquisitionFinished(FinishedAttempt acquisition) {
		Tags tags = tags(acquisition.name()).and("outcome", acquisition.outcome().tagValue());
		this.acquisitions.withTags(tags).record(acquisition.duration());
		if (acquisition.waited()) {
			this.waits.withTags(tags).record(acquisition.duration());
		}
	}

	@Override
	public void acquired(HeldLock lock) {
		this.holding.put(lock, this.active.withTags(tags(lock.name())).start());
	}

	@Override
	public void released(HeldLock lock, boolean owned) {
		finished(lock, owned ? "released" : "expired");
	}

	@Override
	public void renewed(HeldLock lock) {
		this.renewals.withTags(tags(lock.name()).and("outcome", "renewed")).increment();
	}

	@Override
	public void lost(HeldLock lock, String reason) {
		Tags tags = tags(lock.name());
		this.renewals.withTags(tags.and("outcome", "lost")).increment();
		this.lost.withTags(tags).increment();
		finished(lock, "lost");
	}

	@Override
	public void resultShared(String name) {
		this.shared.withTags(tags(name)).increment();
	}

	private void finished(HeldLock lock, String outcome) {
		LongTaskTimer.Sample sample = this.holding.remove(lock);
		if (sample != null) {
			sample.stop();
		}
		this.held.withTags(tags(lock.name()).and("outcome", outcome)).record(lock.age());
	}

	private Tags tags(String name) {
		return Tags.of("name", name, "store", this.store);
	}

}
