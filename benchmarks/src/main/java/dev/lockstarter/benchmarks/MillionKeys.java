package dev.lockstarter.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.redis.RedisServer;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Measures what many distinct lock keys cost in memory, in the JVM and in Redis, when
 * every key is locked once and released at once: {@link LockTemplate} on
 * {@link RedisLockStore} on a {@link LettuceConnectionFactory} with Spring Boot's default
 * settings (one shared native connection), on a fresh local Redis server.
 * <p>
 * After {@value #WARM_UP} warm-up cycles on keys of their own (so that classes are
 * loaded, scripts cached and the connection open), two runs follow, each on keys never
 * locked before and split into {@value #THREADS} contiguous ranges, one per thread:
 * <ol>
 * <li>{@value #DEFAULT_KEYS} keys {@code user:0}, {@code user:1}, ... acquired with a
 * time-to-live of 30 seconds and released, without reading the lease's fencing
 * token;</li>
 * <li>a tenth as many further keys {@code user:<n>}, each lease's
 * {@link Lease#fencingToken() fencing token} read while it is held. A store may keep a
 * fencing counter per key for a while after the release; the figures after the run show
 * what stayed.</li>
 * </ol>
 * Both runs use the same server and client, so the second run's "before" figures include
 * whatever the first run left. Around each run three figures are read, before and, after
 * a pause of {@value #SETTLE_MILLIS} ms, after it:
 * <ul>
 * <li><b>JVM heap</b>: heap used after a full collection. {@link System#gc()} is called,
 * the program sleeps {@value #GC_PAUSE_MILLIS} ms and reads
 * {@link MemoryMXBean#getHeapMemoryUsage()}{@code .getUsed()}; this repeats at least
 * {@value #MIN_GC_ROUNDS} and at most {@value #MAX_GC_ROUNDS} times, until a reading is
 * no lower than the lowest so far, and the lowest reading is the figure. The procedure is
 * the same before and after, so the two figures compare; the difference is what the
 * starter and its client keep for the keys. It assumes explicit collections are not
 * disabled ({@code -XX:+DisableExplicitGC}).</li>
 * <li><b>Redis memory</b>: {@code used_memory} from {@code INFO memory}. It includes the
 * server's key tables, which double in size as keys are added, so a run that crosses a
 * doubling costs more per key than one that does not.</li>
 * <li><b>Redis keys</b>: {@code DBSIZE}. The summary printed to standard output also
 * tells how many of them have a time-to-live ({@code INFO keyspace}).</li>
 * </ul>
 * <p>
 * <b>Fixed heap.</b> {@code benchmarks/run.sh} starts this program with
 * {@code -Xms1g -Xmx1g}. Without them the JVM sizes its heap from the machine's memory
 * and resizes it between collections (and G1 picks its region size from it), so the
 * "before" and "after" readings, and readings on different machines, would not be taken
 * on the same heap. A fixed heap makes them comparable, and bounds the program's memory
 * on a shared machine. A note is printed when no {@code -Xmx} was given.
 * <p>
 * Usage: {@code MillionKeys <output.json> [keys]}; {@code keys} overrides the number of
 * keys of the first run (the second run locks a tenth as many), for quick checks. Writes
 * the figures as JSON and a summary to standard output.
 */
public final class MillionKeys {

	static final int DEFAULT_KEYS = 1_000_000;

	static final int THREADS = 8;

	static final int WARM_UP = 10_000;

	static final Duration TTL = Duration.ofSeconds(30);

	static final long SETTLE_MILLIS = 2000;

	static final long GC_PAUSE_MILLIS = 100;

	static final int MIN_GC_ROUNDS = 3;

	static final int MAX_GC_ROUNDS = 20;

	private static final Pattern USED_MEMORY = Pattern.compile("(?m)^used_memory:(\\d+)");

	private static final Pattern EXPIRING_KEYS = Pattern.compile("(?m)^db\\d+:keys=\\d+,expires=(\\d+)");

	private MillionKeys() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length < 1 || args.length > 2) {
			System.err.println("Usage: MillionKeys <output.json> [keys]");
			System.exit(2);
		}
		int keys = (args.length > 1) ? Integer.parseInt(args[1]) : DEFAULT_KEYS;
		if (keys < THREADS * 10) {
			System.err.println("The number of keys must be at least " + (THREADS * 10));
			System.exit(2);
		}
		List<String> heapFlags = heapFlags();
		if (heapFlags.stream().noneMatch((flag) -> flag.startsWith("-Xmx"))) {
			System.out.println("Note: no -Xmx given; the heap figures depend on this machine's default heap size");
		}
		List<Run> runs = new ArrayList<>();
		try (RedisServer redis = RedisServer.start(); Client client = new Client(redis.host(), redis.port())) {
			System.out.printf(Locale.ROOT, "Warming up with %,d keys on %d threads ...%n", WARM_UP, THREADS);
			lockAll(client.locks, "warmup:", 0, WARM_UP, false);
			runs.add(measure(redis, client.locks, "no fencing token read", 0, keys, false));
			runs.add(measure(redis, client.locks, "fencing token read", keys, keys / 10, true));
		}
		Path output = Path.of(args[0]);
		Path directory = output.toAbsolutePath().getParent();
		if (directory != null) {
			Files.createDirectories(directory);
		}
		Files.writeString(output, toJson(runs, command(heapFlags, args)), StandardCharsets.UTF_8);
		for (Run run : runs) {
			System.out.print(run.summary());
		}
	}

	/**
	 * Measure one run: the figures before, the keys {@code user:first} onwards, a pause,
	 * then the figures after.
	 */
	private static Run measure(RedisServer redis, LockTemplate locks, String name, long first, int keys,
			boolean readFencingToken) throws InterruptedException {
		System.out.printf(Locale.ROOT, "Run '%s': %,d keys on %d threads ...%n", name, keys, THREADS);
		Figures before = Figures.read(redis);
		long started = System.nanoTime();
		lockAll(locks, "user:", first, keys, readFencingToken);
		double seconds = (System.nanoTime() - started) / 1e9;
		Thread.sleep(SETTLE_MILLIS);
		Figures after = Figures.read(redis);
		return new Run(name, keys, seconds, before, after);
	}

	/**
	 * Acquire and release the keys {@code prefix + first} to
	 * {@code prefix + (first + count - 1)}, each once, on {@value #THREADS} threads that
	 * each take one contiguous range.
	 */
	private static void lockAll(LockTemplate locks, String prefix, long first, int count, boolean readFencingToken)
			throws InterruptedException {
		AtomicReference<Throwable> failure = new AtomicReference<>();
		long[] done = new long[THREADS];
		Thread[] threads = new Thread[THREADS];
		for (int t = 0; t < THREADS; t++) {
			int thread = t;
			long from = first + (long) count * t / THREADS;
			long to = first + (long) count * (t + 1) / THREADS;
			threads[t] = new Thread(() -> {
				try {
					for (long n = from; n < to; n++) {
						try (Lease lease = locks.acquire(prefix + n, TTL)) {
							if (readFencingToken && lease.fencingToken() <= 0) {
								throw new IllegalStateException("No fencing token for " + lease.key());
							}
						}
						done[thread]++;
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			}, "million-keys-" + t);
		}
		for (Thread thread : threads) {
			thread.start();
		}
		for (Thread thread : threads) {
			thread.join();
		}
		if (failure.get() != null) {
			throw new IllegalStateException("A lock cycle failed", failure.get());
		}
		long total = 0;
		for (long cycles : done) {
			total += cycles;
		}
		if (total != count) {
			throw new IllegalStateException("Expected " + count + " lock cycles but ran " + total);
		}
	}

	/**
	 * Return heap used after a full collection, as described in the class documentation.
	 */
	static long heapUsedAfterFullGc() throws InterruptedException {
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		long lowest = Long.MAX_VALUE;
		for (int round = 1; round <= MAX_GC_ROUNDS; round++) {
			System.gc();
			Thread.sleep(GC_PAUSE_MILLIS);
			long used = memory.getHeapMemoryUsage().getUsed();
			if (used >= lowest && round >= MIN_GC_ROUNDS) {
				break;
			}
			lowest = Math.min(lowest, used);
		}
		return lowest;
	}

	/**
	 * Return the heap-size options this JVM was started with.
	 */
	private static List<String> heapFlags() {
		return ManagementFactory.getRuntimeMXBean()
			.getInputArguments()
			.stream()
			.filter((argument) -> argument.startsWith("-Xms") || argument.startsWith("-Xmx"))
			.toList();
	}

	/**
	 * Return the command line that ran this program, as far as it matters for the
	 * figures.
	 */
	private static String command(List<String> heapFlags, String[] args) {
		List<String> words = new ArrayList<>();
		words.add("java");
		words.addAll(heapFlags);
		words.add("-cp");
		words.add(System.getProperty("java.class.path"));
		words.add(MillionKeys.class.getName());
		words.addAll(List.of(args));
		return String.join(" ", words);
	}

	private static String toJson(List<Run> runs, String command) {
		StringBuilder json = new StringBuilder("{\"threads\": " + THREADS + ", \"runs\": [");
		String separator = "\n";
		for (Run run : runs) {
			json.append(separator).append(run.toJson());
			separator = ",\n";
		}
		return json.append("\n], \"command\": \"").append(jsonEscape(command)).append("\"}\n").toString();
	}

	private static String jsonEscape(String text) {
		StringBuilder escaped = new StringBuilder(text.length());
		for (char c : text.toCharArray()) {
			switch (c) {
				case '"' -> escaped.append("\\\"");
				case '\\' -> escaped.append("\\\\");
				default -> {
					if (c < 0x20) {
						escaped.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
					}
					else {
						escaped.append(c);
					}
				}
			}
		}
		return escaped.toString();
	}

	/**
	 * The lock client measured, as an application would set it up.
	 */
	private static final class Client implements AutoCloseable {

		private final LettuceConnectionFactory connectionFactory;

		private final RedisLockStore store;

		final LockTemplate locks;

		Client(String host, int port) {
			this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
			this.connectionFactory.afterPropertiesSet();
			this.connectionFactory.start();
			this.store = new RedisLockStore(this.connectionFactory);
			this.locks = new LockTemplate(this.store);
		}

		@Override
		public void close() {
			try {
				this.locks.destroy();
				this.store.destroy();
			}
			catch (Exception ex) {
				throw new IllegalStateException("Failed to close the lock client", ex);
			}
			finally {
				this.connectionFactory.destroy();
			}
		}

	}

	/**
	 * The memory figures at one moment.
	 *
	 * @param heapBytes JVM heap used after a full collection
	 * @param redisUsedMemory Redis {@code used_memory}
	 * @param redisKeys Redis {@code DBSIZE}
	 * @param redisExpiringKeys keys with a time-to-live, from {@code INFO keyspace}
	 */
	private record Figures(long heapBytes, long redisUsedMemory, long redisKeys, long redisExpiringKeys) {

		static Figures read(RedisServer redis) throws InterruptedException {
			long heap = heapUsedAfterFullGc();
			long usedMemory = find(USED_MEMORY, redis.command("INFO", "memory"));
			String dbSize = redis.command("DBSIZE");
			long keys = (dbSize != null) ? Long.parseLong(dbSize.strip()) : 0;
			long expiring = find(EXPIRING_KEYS, redis.command("INFO", "keyspace"));
			return new Figures(heap, usedMemory, keys, expiring);
		}

		private static long find(Pattern pattern, @Nullable String text) {
			Matcher matcher = pattern.matcher((text != null) ? text : "");
			return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
		}

	}

	/**
	 * The figures of one run.
	 */
	private record Run(String name, int keys, double seconds, Figures before, Figures after) {

		String toJson() {
			return String.format(Locale.ROOT,
					"  {\"name\": \"%s\", \"keys\": %d, \"seconds\": %.2f,%n"
							+ "   \"heap_before_bytes\": %d, \"heap_after_bytes\": %d,%n"
							+ "   \"redis_used_memory_before\": %d, \"redis_used_memory_after\": %d,%n"
							+ "   \"redis_keys_before\": %d, \"redis_keys_after\": %d}",
					jsonEscape(this.name), this.keys, this.seconds, this.before.heapBytes(), this.after.heapBytes(),
					this.before.redisUsedMemory(), this.after.redisUsedMemory(), this.before.redisKeys(),
					this.after.redisKeys());
		}

		String summary() {
			StringBuilder summary = new StringBuilder();
			summary.append(String.format(Locale.ROOT, "%n%s: %,d keys on %d threads in %.1f s (%,.0f cycles/s)%n",
					this.name, this.keys, THREADS, this.seconds, this.keys / this.seconds));
			summary.append(line("JVM heap after full GC", this.before.heapBytes(), this.after.heapBytes()));
			summary.append(line("Redis used_memory", this.before.redisUsedMemory(), this.after.redisUsedMemory()));
			summary.append(String.format(Locale.ROOT, "  %-24s %,14d -> %,14d  (%,d with a time-to-live)%n",
					"Redis keys (DBSIZE)", this.before.redisKeys(), this.after.redisKeys(),
					this.after.redisExpiringKeys()));
			return summary.toString();
		}

		private String line(String label, long before, long after) {
			return String.format(Locale.ROOT, "  %-24s %,14d -> %,14d bytes  (%+,.1f MiB, %+,.1f bytes per key)%n",
					label, before, after, (after - before) / (1024.0 * 1024.0), (after - before) / (double) this.keys);
		}

	}

}
