import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The handoff latency of a waiting acquisition: the time from the moment a holder sends its
 * release until a waiter, blocked on the same key, has its acquisition answered. Two setups,
 * taking turns round by round so that a change in the machine's state falls on both alike:
 * <ul>
 * <li>{@code HTTP}: the holder acquires and releases through lock server A; the waiter
 * long-polls ({@code waitMillis}) through lock server B, which learns of the release from
 * the store. Each side has its own {@code HttpClient} (HTTP/1.1, kept-alive connections).</li>
 * <li>{@code DIRECT}: the same with two {@code LockTemplate}s, each on a Redis connection of
 * its own, in this JVM.</li>
 * </ul>
 * Before each release the holder pauses long enough for the waiter to be parked in its wait
 * (20 to 51 ms, varied), so that what is measured is a wake-up. Both timestamps are
 * {@link System#nanoTime()} in this JVM.
 * <p>
 * Usage: {@code java -cp <lock-server classpath> HandoffLoad.java <output.json> <redis
 * host:port> <server A URL> <server B URL> <handoffs> <rounds>}; the API key comes from
 * {@code LOCK_SERVER_API_KEY}. Writes, per setup, the percentiles and every sample
 * ({@code samples_us}, sorted), as {@code benchmarks/results/handoff.json} holds them, with
 * when the run started (UTC), and a {@code RESULT} line per setup to standard output.
 */
public class HandoffLoad {

	private static final int WARM_UP = 50;

	private static final Duration WAIT = Duration.ofSeconds(5);

	private static final Duration TTL = Duration.ofSeconds(30);

	private static final Pattern TOKEN = Pattern.compile("\"ownerToken\":\"([A-Za-z0-9_-]+)\"");

	public static void main(String[] args) throws Exception {
		String started = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
			.withZone(ZoneOffset.UTC)
			.format(Instant.now());
		Path output = Path.of(args[0]);
		String[] redis = args[1].split(":");
		URI serverA = URI.create(args[2]);
		URI serverB = URI.create(args[3]);
		int handoffs = Integer.parseInt(args[4]);
		int rounds = Integer.parseInt(args[5]);
		String apiKey = System.getenv("LOCK_SERVER_API_KEY");
		ExecutorService waiterThread = Executors.newSingleThreadExecutor();
		List<Setup> setups = new ArrayList<>();
		LettuceConnectionFactory holderRedis = connect(redis);
		LettuceConnectionFactory waiterRedis = connect(redis);
		LockTemplate holderLocks = new LockTemplate(new RedisLockStore(holderRedis));
		LockTemplate waiterLocks = new LockTemplate(new RedisLockStore(waiterRedis));
		try {
			setups.add(new Setup("HTTP", "lock server: release through instance A, long poll through instance B",
					new HttpHandoff(serverA, serverB, apiKey, waiterThread)));
			setups.add(new Setup("DIRECT", "two LockTemplates on their own Redis connections, in one JVM",
					new DirectHandoff(holderLocks, waiterLocks, waiterThread)));
			for (Setup setup : setups) {
				for (int i = 0; i < WARM_UP; i++) {
					setup.handoff.measure(pause(i));
				}
			}
			int perRound = Math.max(1, handoffs / rounds);
			for (int round = 0; round < rounds; round++) {
				for (int s = 0; s < setups.size(); s++) {
					Setup setup = setups.get((round + s) % setups.size());
					for (int i = 0; i < perRound; i++) {
						setup.samples.add(setup.handoff.measure(pause(i)));
					}
				}
			}
		}
		finally {
			waiterThread.shutdownNow();
			holderLocks.destroy();
			waiterLocks.destroy();
			holderRedis.destroy();
			waiterRedis.destroy();
		}
		StringBuilder json = new StringBuilder();
		json.append("{\n  \"started\": \"")
			.append(started)
			.append("\",\n  \"handoffs\": ")
			.append(setups.get(0).samples.size())
			.append(",\n  \"rounds\": ")
			.append(rounds)
			.append(",\n  \"warm_up\": ")
			.append(WARM_UP)
			.append(",\n  \"instances\": 2,\n  \"setups\": {");
		for (int s = 0; s < setups.size(); s++) {
			Setup setup = setups.get(s);
			long[] sorted = setup.samples.stream().mapToLong(Long::longValue).sorted().toArray();
			System.out.printf(Locale.ROOT, "RESULT setup=%s handoffs=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d%n",
					setup.name, sorted.length, percentile(sorted, 0.50), percentile(sorted, 0.90),
					percentile(sorted, 0.99), sorted[sorted.length - 1]);
			json.append((s > 0) ? ",\n" : "\n")
				.append("    \"")
				.append(setup.name)
				.append("\": {\"description\": \"")
				.append(setup.description)
				.append("\", \"p50_us\": ")
				.append(percentile(sorted, 0.50))
				.append(", \"p90_us\": ")
				.append(percentile(sorted, 0.90))
				.append(", \"p99_us\": ")
				.append(percentile(sorted, 0.99))
				.append(", \"max_us\": ")
				.append(sorted[sorted.length - 1])
				.append(",\n      \"samples_us\": [")
				.append(Arrays.stream(sorted).mapToObj(Long::toString).collect(Collectors.joining(", ")))
				.append("]}");
		}
		json.append("\n  }\n}\n");
		Files.writeString(output, json, StandardCharsets.UTF_8);
	}

	private static LettuceConnectionFactory connect(String[] hostPort) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(hostPort[0], Integer.parseInt(hostPort[1]));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/** 20 to 51 ms, varied so that no phase of the waiter's is always met. */
	private static long pause(int i) {
		return 20 + (i * 7L) % 32;
	}

	private static long percentile(long[] sorted, double p) {
		return sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))];
	}

	private record Setup(String name, String description, Handoff handoff, List<Long> samples) {

		Setup(String name, String description, Handoff handoff) {
			this(name, description, handoff, new ArrayList<>());
		}

	}

	interface Handoff {

		/**
		 * Take the lock, start a waiter, pause, release: return the microseconds from
		 * sending the release to the waiter's answer.
		 */
		long measure(long pauseMillis) throws Exception;

	}

	/** Through two lock server instances, each side with its own kept-alive connections. */
	static final class HttpHandoff implements Handoff {

		private final HttpClient holder = client();

		private final HttpClient waiter = client();

		private final URI serverA;

		private final URI serverB;

		private final String apiKey;

		private final ExecutorService waiterThread;

		HttpHandoff(URI serverA, URI serverB, String apiKey, ExecutorService waiterThread) {
			this.serverA = serverA;
			this.serverB = serverB;
			this.apiKey = apiKey;
			this.waiterThread = waiterThread;
		}

		private static HttpClient client() {
			// HTTP/1.1 without an upgrade attempt; the client keeps its connections alive
			return HttpClient.newBuilder()
				.version(HttpClient.Version.HTTP_1_1)
				.connectTimeout(Duration.ofSeconds(5))
				.build();
		}

		@Override
		public long measure(long pauseMillis) throws Exception {
			String path = "/v1/namespaces/load/locks/handoff-" + UUID.randomUUID();
			String holderToken = token(send(this.holder, this.serverA, path, "POST", null, "{}", 201));
			Future<Long> answered = this.waiterThread.submit(() -> {
				String body = send(this.waiter, this.serverB, path, "POST", null,
						"{\"waitMillis\":" + WAIT.toMillis() + "}", 201);
				long at = System.nanoTime();
				send(this.waiter, this.serverB, path, "DELETE", token(body), null, 204);
				return at;
			});
			Thread.sleep(pauseMillis);
			if (answered.isDone()) {
				throw new IllegalStateException("The waiter was answered before the release: " + answered.get());
			}
			long releasedAt = System.nanoTime();
			send(this.holder, this.serverA, path, "DELETE", holderToken, null, 204);
			return TimeUnit.NANOSECONDS.toMicros(answered.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS) - releasedAt);
		}

		private String send(HttpClient client, URI server, String path, String method, String ownerToken,
				String body, int expected) {
			HttpRequest.Builder request = HttpRequest.newBuilder(server.resolve(path))
				.timeout(WAIT.plusSeconds(10))
				.header("Authorization", "Bearer " + this.apiKey);
			if (ownerToken != null) {
				request.header("Lock-Owner-Token", ownerToken);
			}
			if (body != null) {
				request.header("Content-Type", "application/json")
					.method(method, HttpRequest.BodyPublishers.ofString(body));
			}
			else {
				request.method(method, HttpRequest.BodyPublishers.noBody());
			}
			try {
				HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
				if (response.statusCode() != expected) {
					throw new IllegalStateException(
							method + " " + path + " answered " + response.statusCode() + " " + response.body());
				}
				return response.body();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

		private static String token(String acquired) {
			Matcher token = TOKEN.matcher(acquired);
			if (!token.find()) {
				throw new IllegalStateException("acquire answered " + acquired);
			}
			return token.group(1);
		}

	}

	/** Two templates, each on a Redis connection of its own, as two applications would be. */
	static final class DirectHandoff implements Handoff {

		private final LockTemplate holder;

		private final LockTemplate waiter;

		private final ExecutorService waiterThread;

		DirectHandoff(LockTemplate holder, LockTemplate waiter, ExecutorService waiterThread) {
			this.holder = holder;
			this.waiter = waiter;
			this.waiterThread = waiterThread;
		}

		@Override
		public long measure(long pauseMillis) throws Exception {
			String key = "handoff-" + UUID.randomUUID();
			Lease held = this.holder.acquire(key, TTL);
			Future<Long> answered = this.waiterThread.submit(() -> {
				LockAttempt attempt = this.waiter.tryAcquire(key, LockOptions.ttl(TTL).withWaitTime(WAIT));
				long at = System.nanoTime();
				if (!attempt.isAcquired()) {
					throw new IllegalStateException("The waiter did not get " + key);
				}
				attempt.lease().close();
				return at;
			});
			Thread.sleep(pauseMillis);
			if (answered.isDone()) {
				throw new IllegalStateException("The waiter was answered before the release: " + answered.get());
			}
			long releasedAt = System.nanoTime();
			held.close();
			return TimeUnit.NANOSECONDS.toMicros(answered.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS) - releasedAt);
		}

	}

}
