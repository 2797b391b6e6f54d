package dev.lockstarter.sample.counter;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counters in this process's memory.
 *
 * @since 0.1.0
 */
public class InMemoryCounterRepository implements CounterRepository {

	private final Map<String, Long> values = new ConcurrentHashMap<>();

	@Override
	public long read(String name) {
		return this.values.getOrDefault(name, 0L);
	}

	@Override
	public void write(String name, long value) {
		this.values.put(name, value);
	}

}
