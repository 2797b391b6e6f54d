import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Acquire + release cycles for a while, on threads of their own keys, reporting cycles per
 * second and the p50/p99 latency of one cycle:
 * <ul>
 * <li>{@code direct}: {@code LockTemplate.acquire} and {@code Lease.close} on a Redis store;</li>
 * <li>{@code http}: {@code POST} then {@code DELETE} with the owner token against the lock
 * server (JDK HttpClient, HTTP/1.1 keep-alive).</li>
 * </ul>
 * Usage: {@code java -cp <lock-server classpath> LockCycleLoad.java direct|http <target>
 * <threads> <seconds>}, where the target is {@code host:port} of Redis or the server's
 * base URL; the API key comes from {@code LOCK_SERVER_API_KEY}.
 */
public class LockCycleLoad {

	private static final Pattern TOKEN = Pattern.compile("\"ownerToken\":\"([A-Za-z0-9_-]+)\"");

	public static void main(String[] args) throws Exception {
		String mode = args[0];
		String target = args[1];
		int threads = Integer.parseInt(args[2]);
		long seconds = Long.parseLong(args[3]);
		if (mode.equals("direct")) {
			String[] hostPort = target.split(":");
			LettuceConnectionFactory factory = new LettuceConnectionFactory(hostPort[0], Integer.parseInt(hostPort[1]));
			factory.afterPropertiesSet();
			factory.start();
			LockTemplate locks = new LockTemplate(new RedisLockStore(factory));
			try {
				run(mode, threads, seconds, (thread) -> {
					int[] next = { 0 };
					return () -> {
						try (Lease lease = locks.acquire("load-" + thread + "-" + (next[0]++ % 1000),
								Duration.ofSeconds(30))) {
							lease.fencingToken();
						}
					};
				});
			}
			finally {
				locks.destroy();
				factory.destroy();
			}
		}
		else {
			String apiKey = System.getenv("LOCK_SERVER_API_KEY");
			run(mode, threads, seconds, (thread) -> {
				HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
				int[] next = { 0 };
				return () -> {
					URI uri = URI.create(target + "/v1/namespaces/load/locks/load-" + thread + "-" + (next[0]++ % 1000));
					HttpResponse<String> acquired = http.send(HttpRequest.newBuilder(uri)
						.header("Authorization", "Bearer " + apiKey)
						.POST(HttpRequest.BodyPublishers.noBody())
						.build(), HttpResponse.BodyHandlers.ofString());
					Matcher token = TOKEN.matcher(acquired.body());
					if (acquired.statusCode() != 201 || !token.find()) {
						throw new IllegalStateException("acquire answered " + acquired.statusCode() + " " + acquired.body());
					}
					HttpResponse<Void> released = http.send(HttpRequest.newBuilder(uri)
						.header("Authorization", "Bearer " + apiKey)
						.header("Lock-Owner-Token", token.group(1))
						.DELETE()
						.build(), HttpResponse.BodyHandlers.discarding());
					if (released.statusCode() != 204) {
						throw new IllegalStateException("release answered " + released.statusCode());
					}
				};
			});
		}
	}

	interface Cycle {

		void run() throws Exception;

	}

	private static void run(String mode, int threads, long seconds, IntFunction<Cycle> cycles) throws Exception {
		AtomicBoolean measuring = new AtomicBoolean();
		AtomicBoolean stop = new AtomicBoolean();
		List<long[]> samples = new ArrayList<>();
		int[] counts = new int[threads];
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int thread = t;
			long[] latencies = new long[5_000_000];
			samples.add(latencies);
			Cycle cycle = cycles.apply(thread);
			Thread worker = new Thread(() -> {
				try {
					while (!stop.get()) {
						long start = System.nanoTime();
						cycle.run();
						long took = System.nanoTime() - start;
						if (measuring.get() && counts[thread] < latencies.length) {
							latencies[counts[thread]++] = took;
						}
					}
				}
				catch (Exception ex) {
					ex.printStackTrace();
					System.exit(1);
				}
			});
			workers.add(worker);
			worker.start();
		}
		Thread.sleep(Math.min(5, seconds) * 1000);
		measuring.set(true);
		long startedAt = System.nanoTime();
		Thread.sleep(seconds * 1000);
		measuring.set(false);
		double elapsed = (System.nanoTime() - startedAt) / 1e9;
		stop.set(true);
		for (Thread worker : workers) {
			worker.join();
		}
		int total = Arrays.stream(counts).sum();
		long[] all = new long[total];
		int at = 0;
		for (int t = 0; t < threads; t++) {
			System.arraycopy(samples.get(t), 0, all, at, counts[t]);
			at += counts[t];
		}
		Arrays.sort(all);
		System.out.printf("RESULT mode=%s threads=%d cycles_per_s=%.0f p50_us=%.0f p99_us=%.0f cycles=%d%n", mode,
				threads, total / elapsed, all[total / 2] / 1e3, all[(int) (total * 0.99)] / 1e3, total);
	}

}
