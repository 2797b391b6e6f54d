package dev.lockstarter.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.AcquireResult;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.redis.RedisServer;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Measures the handoff latency of a waiting lock: the time from the moment a holder starts its
 * release until a waiter blocked on the same key has acquired it. Holder and waiter each have
 * their own {@link LockTemplate}, store and connection factory, as two application instances
 * would, on one real Redis server. Two waiter setups are measured:
 * <ul>
 * <li>{@code notified}: the Redis store as configured, woken by the release notification;</li>
 * <li>{@code polling only}: the same store with notifications hidden, so the waiter finds the
 * release by polling with backoff (the behaviour when pub/sub is lost).</li>
 * </ul>
 * Each handoff is preceded by a pause long enough for the waiter to be asleep in its wait, so
 * what is measured is a wake-up, not a spin. Writes percentiles as JSON to the path given as
 * the first argument, and a summary to standard output.
 */
public final class HandoffLatency {

	static final int WARM_UP = 50;

	static final int HANDOFFS = 300;

	private HandoffLatency() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length != 1) {
			System.err.println("Usage: HandoffLatency <output.json>");
			System.exit(2);
		}
		try (RedisServer redis = RedisServer.start()) {
			StringBuilder json = new StringBuilder("{\n  \"handoffs\": " + HANDOFFS + ",\n  \"setups\": {");
			String separator = "\n";
			for (boolean notified : new boolean[] { true, false }) {
				long[] micros = measure(redis, notified);
				String name = notified ? "notified" : "polling only";
				System.out.printf(Locale.ROOT, "%-13s p50 %8.2f ms  p90 %8.2f ms  p99 %8.2f ms  max %8.2f ms%n", name,
						percentile(micros, 50) / 1000.0, percentile(micros, 90) / 1000.0,
						percentile(micros, 99) / 1000.0, micros[micros.length - 1] / 1000.0);
				json.append(separator)
					.append(String.format(Locale.ROOT,
							"    \"%s\": {\"p50_us\": %d, \"p90_us\": %d, \"p99_us\": %d, \"max_us\": %d}", name,
							percentile(micros, 50), percentile(micros, 90), percentile(micros, 99),
							micros[micros.length - 1]));
				separator = ",\n";
			}
			json.append("\n  }\n}\n");
			Files.writeString(Path.of(args[0]), json, StandardCharsets.UTF_8);
		}
	}

	private static long[] measure(RedisServer redis, boolean notified) throws Exception {
		LettuceConnectionFactory holderConnections = connectionFactory(redis);
		LettuceConnectionFactory waiterConnections = connectionFactory(redis);
		RedisLockStore holderStore = new RedisLockStore(holderConnections);
		RedisLockStore waiterStore = new RedisLockStore(waiterConnections);
		LockTemplate holder = new LockTemplate(holderStore);
		LockTemplate waiter = new LockTemplate(notified ? waiterStore : new PollingOnly(waiterStore));
		ExecutorService executor = Executors.newSingleThreadExecutor();
		long[] micros = new long[HANDOFFS];
		try {
			LockOptions wait = LockOptions.ttl(Duration.ofSeconds(30)).withWaitTime(Duration.ofSeconds(10));
			for (int i = -WARM_UP; i < HANDOFFS; i++) {
				String key = "handoff:" + i;
				Lease held = holder.acquire(key, Duration.ofSeconds(30));
				CountDownLatch waiting = new CountDownLatch(1);
				Future<Long> acquiredAt = executor.submit(() -> {
					waiting.countDown();
					LockAttempt attempt = waiter.tryAcquire(key, wait);
					long at = System.nanoTime();
					attempt.lease().release();
					return at;
				});
				waiting.await();
				// Let the waiter subscribe, try, and fall asleep; vary the phase against its polls.
				Thread.sleep(30 + (i & 0x3f));
				long releasedAt = System.nanoTime();
				held.release();
				long elapsed = acquiredAt.get(20, TimeUnit.SECONDS) - releasedAt;
				if (i >= 0) {
					micros[i] = TimeUnit.NANOSECONDS.toMicros(elapsed);
				}
			}
		}
		finally {
			executor.shutdownNow();
			holder.destroy();
			waiter.destroy();
			holderStore.destroy();
			waiterStore.destroy();
			holderConnections.destroy();
			waiterConnections.destroy();
		}
		Arrays.sort(micros);
		return micros;
	}

	private static LettuceConnectionFactory connectionFactory(RedisServer redis) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private static long percentile(long[] sorted, int percent) {
		int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
	}

	/**
	 * The Redis store without its release notifications: what a waiter does when pub/sub fails.
	 */
	private record PollingOnly(LockStore store) implements LockStore {

		@Override
		public AcquireResult tryAcquire(String key, String token, Duration ttl) {
			return this.store.tryAcquire(key, token, ttl);
		}

		@Override
		public boolean release(String key, String token) {
			return this.store.release(key, token);
		}

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			return this.store.extend(key, token, ttl);
		}

		@Override
		public boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl) {
			return this.store.extendAll(keys, tokens, ttl);
		}

	}

}
