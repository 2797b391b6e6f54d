package dev.lockstarter.sample.counter;

import java.time.Duration;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.sample.SampleProperties;
import org.springframework.stereotype.Service;

/**
 * Increments counters by reading the value, pausing for {@code sample.counter.delay}
 * (standing for work between the read and the write), and writing the value plus one: the
 * read-modify-write of the lock-service article. Without a lock, simultaneous increments
 * read the same value and all but one are lost. {@link #increment(String)} runs under a
 * lock on the counter's name and waits for it, so every increment counts.
 *
 * @since 0.1.0
 */
@Service
public class CounterService {

	private final CounterRepository counters;

	private final Duration delay;

	/**
	 * Create a new service.
	 * @param counters the counter repository
	 * @param properties the sample's properties
	 */
	public CounterService(CounterRepository counters, SampleProperties properties) {
		this.counters = counters;
		this.delay = properties.getCounter().getDelay();
	}

	/**
	 * Increment a counter under its lock, waiting up to {@code sample.counter.wait-time}
	 * for it.
	 * @param name the counter's name
	 * @return the counter after the increment
	 */
	@ExclusiveRequest(name = "counter", key = "#name", waitTime = "${sample.counter.wait-time:10s}")
	public Counter increment(String name) {
		return incrementUnsafe(name);
	}

	/**
	 * Increment a counter without a lock: simultaneous calls lose updates.
	 * @param name the counter's name
	 * @return the counter after the increment, as this call wrote it
	 */
	public Counter incrementUnsafe(String name) {
		long value = this.counters.read(name);
		pause();
		this.counters.write(name, value + 1);
		return new Counter(name, value + 1);
	}

	/**
	 * Read a counter.
	 * @param name the counter's name
	 * @return the counter
	 */
	public Counter get(String name) {
		return new Counter(name, this.counters.read(name));
	}

	private void pause() {
		try {
			Thread.sleep(this.delay.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while incrementing", ex);
		}
	}

}
