package dev.lockstarter.sample.sum;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts runs in this process's memory.
 *
 * @since 0.1.0
 */
public class InMemorySumCallCounter implements SumCallCounter {

	private final AtomicLong calls = new AtomicLong();

	@Override
	public void increment() {
		this.calls.incrementAndGet();
	}

	@Override
	public long count() {
		return this.calls.get();
	}

}
