package dev.lockstarter.sample.points;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.lockstarter.sample.SampleProperties;
import org.springframework.stereotype.Service;
import org.springframework.util.Assert;

/**
 * Stand-in for an external points service that grants bonus points. Every call takes
 * {@code sample.points-service.latency}, as a call over the network would; the balances
 * it keeps are its own (simulated) state and live in this process.
 *
 * @since 0.1.0
 */
@Service
public class PointsService {

	private final Duration latency;

	private final Map<String, Integer> balances = new ConcurrentHashMap<>();

	/**
	 * Create a new points service.
	 * @param properties the sample properties holding the simulated latency
	 */
	public PointsService(SampleProperties properties) {
		Duration latency = properties.getPointsService().getLatency();
		Assert.isTrue(!latency.isNegative(), "'sample.points-service.latency' must not be negative");
		this.latency = latency;
	}

	/**
	 * Add points to a user's balance.
	 * @param userId the id of the user
	 * @param points the points to add
	 * @return the user's new balance
	 */
	public int addPoints(String userId, int points) {
		Assert.hasText(userId, "'userId' must not be empty");
		simulateLatency();
		return this.balances.merge(userId, points, Integer::sum);
	}

	private void simulateLatency() {
		try {
			Thread.sleep(this.latency.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while calling the points service", ex);
		}
	}

}
