package dev.lockstarter.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A token bucket per client: {@code burst} requests at once, refilled at the client's
 * requests per second. A refused request learns how long until the next token.
 *
 * @since 0.1.0
 */
final class RateLimiter {

	private static final long NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);

	private final LongSupplier nanoClock;

	private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

	RateLimiter(LongSupplier nanoClock) {
		this.nanoClock = nanoClock;
	}

	/**
	 * Take a token for a client.
	 * @param client the client
	 * @return 0 if the request may go on, else the nanoseconds until it may be retried
	 */
	long take(ApiClients.ApiClient client) {
		if (client.requestsPerSecond() <= 0) {
			return 0;
		}
		return this.buckets
			.computeIfAbsent(client.name(),
					(name) -> new Bucket(client.requestsPerSecond(), client.burst(), this.nanoClock.getAsLong()))
			.take();
	}

	private final class Bucket {

		private final int requestsPerSecond;

		private final int burst;

		/** Tokens, scaled by {@link #NANOS_PER_SECOND} so that refills stay exact. */
		private long scaledTokens;

		private long refilledAt;

		Bucket(int requestsPerSecond, int burst, long now) {
			this.requestsPerSecond = requestsPerSecond;
			this.burst = burst;
			this.scaledTokens = burst * NANOS_PER_SECOND;
			this.refilledAt = now;
		}

		synchronized long take() {
			long now = RateLimiter.this.nanoClock.getAsLong();
			long capacity = this.burst * NANOS_PER_SECOND;
			long elapsed = Math.min(now - this.refilledAt, NANOS_PER_SECOND * this.burst);
			this.scaledTokens = Math.min(capacity, this.scaledTokens + elapsed * this.requestsPerSecond);
			this.refilledAt = now;
			if (this.scaledTokens >= NANOS_PER_SECOND) {
				this.scaledTokens -= NANOS_PER_SECOND;
				return 0;
			}
			return Math.max(1, (NANOS_PER_SECOND - this.scaledTokens) / this.requestsPerSecond);
		}

	}

}
