package dev.lockstarter.sample.sum;

import java.time.Duration;
import java.util.List;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.sample.SampleProperties;
import org.springframework.stereotype.Service;

/**
 * Sums values through a simulated external API that takes {@code sample.sum.latency} and
 * costs money for every call. The method shares its result: while a sum of some values
 * runs, every other request for the same values, on any instance, waits for it and gets
 * its result, so the API is called once.
 *
 * @since 0.1.0
 */
@Service
public class SumService {

	private final SumCallCounter calls;

	private final Duration latency;

	/**
	 * Create a new service.
	 * @param calls the counter of API calls
	 * @param properties the sample's properties
	 */
	public SumService(SumCallCounter calls, SampleProperties properties) {
		this.calls = calls;
		this.latency = properties.getSum().getLatency();
	}

	/**
	 * Sum the values, sharing the run with simultaneous requests for the same values.
	 * @param values the values, in order
	 * @return the sum
	 */
	@ExclusiveRequest(name = "sum", key = "#values", onConflict = OnConflict.SHARE_RESULT)
	public Sum sum(List<Long> values) {
		this.calls.increment();
		try {
			Thread.sleep(this.latency.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while summing", ex);
		}
		return new Sum(values.stream().mapToLong(Long::longValue).sum());
	}

	/**
	 * Return how many times the external API was called.
	 * @return the number of calls
	 */
	public SumCalls calls() {
		return new SumCalls(this.calls.count());
	}

}
