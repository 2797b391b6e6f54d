package dev.lockstarter.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;

/**
 * Measures how long a crashed holder keeps a key from a contender, per store: a holder in
 * a child JVM ({@link Holder}) acquires keys with a time-to-live of {@link #TTL} (1 s),
 * renews them every third of it as the template does, and is killed with {@code SIGKILL};
 * a contender in this JVM, waiting with {@link LockTemplate}'s own waiting (release
 * notifications where the store has them, polls bounded by the holder's remaining
 * time-to-live), measures the time from the holder's last write that the store confirmed,
 * counted from when it was sent, and from the kill, to its own acquisition.
 * <p>
 * Two contenders per kill, on keys of their own ({@link #KEYS_PER_CASE} of each):
 * <ul>
 * <li>{@code watching}: waiting on the key since before the crash (it started a few
 * hundred milliseconds before the kill, while the holder renewed);</li>
 * <li>{@code late}: first looks at the key {@link #LATE_AFTER} after the holder's last
 * write is a whole time-to-live old, so that it has never seen the holder's record.</li>
 * </ul>
 * Both timestamps are {@link System#nanoTime()}, the system-wide monotonic clock on
 * Linux, so times taken in the two processes compare (as in {@link HandoffLatency}). The
 * holder reports every write before it sends it and once the store confirmed it; a kill
 * that falls between the two leaves a write in flight, which the store may have applied
 * after the last confirmed one: such samples are counted ({@code in_flight}).
 * <p>
 * Usage: {@code TakeoverDelay <output.json> [STORE ...]} (by default every
 * {@link TakeoverStore}); {@code -Dtakeover.kills=N} sets the kills per store (15).
 * Writes the percentiles and every sample as JSON, and a summary to standard output.
 */
public final class TakeoverDelay {

	/** The time-to-live of the holder's locks. */
	static final Duration TTL = Duration.ofMillis(Long.getLong("takeover.ttlMillis", 1000));

	/** The kills per store. */
	static final int KILLS = Integer.getInteger("takeover.kills", 15);

	/**
	 * The keys the holder takes for each case, each measured by a contender of its own.
	 */
	static final int KEYS_PER_CASE = 2;

	/**
	 * How long past the time-to-live of the holder's last write the late contender looks.
	 */
	static final Duration LATE_AFTER = Duration.ofMillis(20);

	/** The longest a contender waits. */
	static final Duration MAX_WAIT = Duration.ofSeconds(15);

	static final String PROTOCOL_PREFIX = "TAKEOVER ";

	private TakeoverDelay() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length < 1) {
			System.err.println("Usage: TakeoverDelay <output.json> [" + Arrays.toString(TakeoverStore.values()) + "]");
			System.exit(2);
		}
		List<TakeoverStore> stores = new ArrayList<>();
		for (int i = 1; i < args.length; i++) {
			stores.add(TakeoverStore.valueOf(args[i]));
		}
		if (stores.isEmpty()) {
			stores.addAll(Arrays.asList(TakeoverStore.values()));
		}
		Map<TakeoverStore, StoreRun> runs = new LinkedHashMap<>();
		for (TakeoverStore store : stores) {
			System.out.println("== " + store.description());
			try (TakeoverStore.Started server = store.start()) {
				StoreRun run = new StoreRun(store, server.connection());
				run.measure();
				runs.put(store, run);
				run.summarize(System.out);
			}
		}
		StringBuilder json = new StringBuilder();
		json.append(String.format(Locale.ROOT,
				"{\n  \"ttl_ms\": %d,\n  \"kills\": %d,\n  \"keys_per_case\": %d,\n  \"late_after_ms\": %d,\n"
						+ "  \"stores\": {",
				TTL.toMillis(), KILLS, KEYS_PER_CASE, LATE_AFTER.toMillis()));
		String separator = "\n";
		for (StoreRun run : runs.values()) {
			json.append(separator).append(run.json());
			separator = ",\n";
		}
		json.append("\n  }\n}\n");
		Files.writeString(Path.of(args[0]), json, StandardCharsets.UTF_8);
		// DynamoDB Local, which runs in this JVM, leaves a thread behind that is no
		// daemon
		System.exit(0);
	}

	/**
	 * The kills of one store and the contenders' samples.
	 */
	private static final class StoreRun {

		private final TakeoverStore store;

		private final List<String> connection;

		private final Map<String, List<Sample>> samples = new LinkedHashMap<>();

		private int failures;

		StoreRun(TakeoverStore store, List<String> connection) {
			this.store = store;
			this.connection = connection;
			this.samples.put("watching", new ArrayList<>());
			this.samples.put("late", new ArrayList<>());
		}

		void measure() throws Exception {
			try (TakeoverStore.Opened opened = this.store.open(this.connection)) {
				LockTemplate locks = new LockTemplate(opened.store());
				try {
					warmUp(locks);
					for (int kill = 0; kill < KILLS; kill++) {
						killOnce(locks, kill);
					}
				}
				finally {
					locks.destroy();
				}
			}
		}

		private void warmUp(LockTemplate locks) {
			for (int i = 0; i < 20; i++) {
				try (Lease lease = locks.acquire("takeover-warm-up:" + i, TTL)) {
					lease.isHeld();
				}
			}
		}

		private void killOnce(LockTemplate locks, int kill) throws Exception {
			String prefix = "takeover:" + this.store.name().toLowerCase(Locale.ROOT) + ":" + kill + ":";
			List<String> watched = new ArrayList<>();
			List<String> late = new ArrayList<>();
			for (int i = 0; i < KEYS_PER_CASE; i++) {
				watched.add(prefix + "watching-" + i);
				late.add(prefix + "late-" + i);
			}
			List<String> keys = new ArrayList<>(watched);
			keys.addAll(late);
			HolderProcess holder = HolderProcess.start(this.store, this.connection);
			List<Contender> contenders = new ArrayList<>();
			try {
				holder.hold(keys);
				for (String key : watched) {
					contenders.add(Contender.start(locks, key, "watching", 0));
				}
				// The holder renews while the watchers wait: kill it at a random point
				Thread.sleep(400 + ThreadLocalRandom.current().nextInt(500));
			}
			finally {
				holder.kill();
			}
			for (String key : late) {
				long lastWrite = holder.lastConfirmed(key);
				contenders.add(Contender.start(locks, key, "late", lastWrite + TTL.toNanos() + LATE_AFTER.toNanos()));
			}
			for (Contender contender : contenders) {
				long acquiredAt = contender.await();
				if (acquiredAt == 0) {
					this.failures++;
					continue;
				}
				this.samples.get(contender.kind)
					.add(new Sample(acquiredAt - holder.lastConfirmed(contender.key), acquiredAt - holder.killedAt,
							holder.inFlight(contender.key)));
			}
		}

		void summarize(PrintStream out) {
			for (Map.Entry<String, List<Sample>> entry : this.samples.entrySet()) {
				double[] fromWrite = entry.getValue()
					.stream()
					.mapToDouble(Sample::fromLastWriteMillis)
					.sorted()
					.toArray();
				double[] fromKill = entry.getValue().stream().mapToDouble(Sample::fromKillMillis).sorted().toArray();
				if (fromWrite.length == 0) {
					continue;
				}
				out.printf(Locale.ROOT,
						"%-20s %-9s from last write p50 %7.1f ms p99 %7.1f ms | from kill p50 %7.1f ms p99 %7.1f ms%n",
						this.store.description(), entry.getKey(), percentile(fromWrite, 50), percentile(fromWrite, 99),
						percentile(fromKill, 50), percentile(fromKill, 99));
			}
			if (this.failures > 0) {
				out.println(this.failures + " contenders did not get the lock within " + MAX_WAIT);
			}
		}

		String json() {
			StringBuilder json = new StringBuilder(
					String.format(Locale.ROOT, "    \"%s\": {\"description\": \"%s\", \"failures\": %d",
							this.store.name(), this.store.description(), this.failures));
			for (Map.Entry<String, List<Sample>> entry : this.samples.entrySet()) {
				List<Sample> samples = entry.getValue();
				double[] fromWrite = samples.stream().mapToDouble(Sample::fromLastWriteMillis).sorted().toArray();
				double[] fromKill = samples.stream().mapToDouble(Sample::fromKillMillis).sorted().toArray();
				json.append(String.format(Locale.ROOT, ",\n      \"%s\": {\"samples\": %d, \"in_flight\": %d",
						entry.getKey(), samples.size(), samples.stream().filter(Sample::inFlight).count()));
				json.append(",\n        \"from_last_write_ms\": ").append(stats(fromWrite));
				json.append(",\n        \"from_kill_ms\": ").append(stats(fromKill));
				json.append(",\n        \"samples_from_last_write_ms\": ").append(array(samples, true));
				json.append(",\n        \"samples_from_kill_ms\": ").append(array(samples, false));
				json.append("}");
			}
			return json.append("}").toString();
		}

		private static String stats(double[] sorted) {
			if (sorted.length == 0) {
				return "null";
			}
			return String.format(Locale.ROOT,
					"{\"min\": %.2f, \"p50\": %.2f, \"p90\": %.2f, \"p99\": %.2f, \"max\": %.2f}", sorted[0],
					percentile(sorted, 50), percentile(sorted, 90), percentile(sorted, 99), sorted[sorted.length - 1]);
		}

		private static String array(List<Sample> samples, boolean fromWrite) {
			StringBuilder array = new StringBuilder("[");
			for (int i = 0; i < samples.size(); i++) {
				Sample sample = samples.get(i);
				array.append((i > 0) ? ", " : "")
					.append(String.format(Locale.ROOT, "%.2f",
							fromWrite ? sample.fromLastWriteMillis() : sample.fromKillMillis()));
			}
			return array.append(']').toString();
		}

	}

	/**
	 * One contender's takeover.
	 *
	 * @param fromLastWrite nanoseconds from when the holder sent its last confirmed write
	 * @param fromKill nanoseconds from the kill
	 * @param inFlight whether the holder had a write sent but not confirmed when killed
	 */
	record Sample(long fromLastWrite, long fromKill, boolean inFlight) {

		double fromLastWriteMillis() {
			return this.fromLastWrite / 1e6;
		}

		double fromKillMillis() {
			return this.fromKill / 1e6;
		}

	}

	/**
	 * A contender on one key: a thread that, at a given time (at once for 0), acquires
	 * the key with the template's waiting, notes when it got it and releases it.
	 */
	private static final class Contender {

		private final String key;

		private final String kind;

		private final Thread thread;

		private volatile long acquiredAt;

		private Contender(LockTemplate locks, String key, String kind, long startAt) {
			this.key = key;
			this.kind = kind;
			LockOptions options = LockOptions.ttl(TTL).withWaitTime(MAX_WAIT).withRenewal(false);
			this.thread = new Thread(() -> {
				if (startAt != 0) {
					sleepUntil(startAt);
				}
				try (Lease lease = locks.acquire(key, options)) {
					this.acquiredAt = System.nanoTime();
				}
				catch (LockConflictException ex) {
					// Not acquired within the wait: counted as a failure
				}
			}, "contender-" + key);
			this.thread.start();
		}

		static Contender start(LockTemplate locks, String key, String kind, long startAt) {
			return new Contender(locks, key, kind, startAt);
		}

		/** Wait for the contender; return when it acquired, or 0 if it did not. */
		long await() throws InterruptedException {
			this.thread.join(MAX_WAIT.plusSeconds(10).toMillis());
			return this.acquiredAt;
		}

	}

	private static void sleepUntil(long nanoTime) {
		long left;
		while ((left = nanoTime - System.nanoTime()) > 0) {
			LockSupport.parkNanos(left);
		}
	}

	/**
	 * The holder's child JVM, and what it said of its writes.
	 */
	private static final class HolderProcess {

		private final Process process;

		private final Writer toHolder;

		private final Thread reader;

		private final Map<String, Long> sending = new ConcurrentHashMap<>();

		private final Map<String, Long> confirmed = new ConcurrentHashMap<>();

		private final CountDownLatch started = new CountDownLatch(1);

		private final CountDownLatch held = new CountDownLatch(1);

		private volatile String failure;

		private long killedAt;

		private HolderProcess(Process process) {
			this.process = process;
			this.toHolder = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
			BufferedReader fromHolder = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
			this.reader = new Thread(() -> read(fromHolder), "holder-reader");
			this.reader.start();
		}

		static HolderProcess start(TakeoverStore store, List<String> connection) throws Exception {
			List<String> command = new ArrayList<>(List.of(javaBinary(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
					"-cp", System.getProperty("java.class.path"), Holder.class.getName(), store.name()));
			command.addAll(connection);
			HolderProcess holder = new HolderProcess(
					new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
			if (!holder.started.await(60, TimeUnit.SECONDS)) {
				holder.kill();
				throw new IllegalStateException("The holder did not start: " + holder.failure);
			}
			return holder;
		}

		void hold(List<String> keys) throws Exception {
			this.toHolder.write("hold " + String.join(" ", keys) + "\n");
			this.toHolder.flush();
			if (!this.held.await(30, TimeUnit.SECONDS) || this.failure != null) {
				throw new IllegalStateException("The holder did not take " + keys + ": " + this.failure);
			}
		}

		/** Kill the holder ({@code SIGKILL}) and read what it said before it died. */
		void kill() throws InterruptedException {
			this.killedAt = System.nanoTime();
			this.process.destroyForcibly();
			this.process.waitFor();
			this.reader.join(10_000);
		}

		long lastConfirmed(String key) {
			Long sentAt = this.confirmed.get(key);
			if (sentAt == null) {
				throw new IllegalStateException("The holder confirmed no write of " + key);
			}
			return sentAt;
		}

		boolean inFlight(String key) {
			Long sent = this.sending.get(key);
			return sent != null && sent != lastConfirmed(key);
		}

		private void read(BufferedReader fromHolder) {
			try {
				String line;
				while ((line = fromHolder.readLine()) != null) {
					if (!line.startsWith(PROTOCOL_PREFIX)) {
						continue;
					}
					String[] parts = line.substring(PROTOCOL_PREFIX.length()).split(" ");
					switch (parts[0]) {
						case "started" -> this.started.countDown();
						case "held" -> this.held.countDown();
						case "sending" -> this.sending.put(parts[1], Long.parseLong(parts[2]));
						case "wrote" -> this.confirmed.put(parts[1], Long.parseLong(parts[2]));
						default -> {
							this.failure = line;
							this.held.countDown();
						}
					}
				}
			}
			catch (IOException ex) {
				// The holder was killed
			}
		}

	}

	private static String javaBinary() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

	static double percentile(double[] sorted, int percent) {
		int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
	}

	/**
	 * The holder: a child JVM that opens the store, takes the keys it is told to with the
	 * store's own acquisition (the store keys the template would use), renews them every
	 * third of their time-to-live, as the template does, and says when it sent each write
	 * and when the store confirmed it, until it is killed.
	 */
	public static final class Holder {

		private Holder() {
		}

		public static void main(String[] args) throws Exception {
			TakeoverStore kind = TakeoverStore.valueOf(args[0]);
			PrintStream out = System.out;
			TakeoverStore.Opened opened = kind.open(List.of(args).subList(1, args.length));
			LockStore store = opened.store();
			// Connect before anything is measured
			String probe = LockTemplate.DEFAULT_KEY_PREFIX + "takeover-probe:" + ProcessHandle.current().pid();
			String probeToken = UUID.randomUUID().toString();
			if (store.tryAcquire(probe, probeToken, TTL).isAcquired()) {
				store.release(probe, probeToken);
			}
			say(out, "started");
			BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			String line = in.readLine();
			if (line == null || !line.startsWith("hold ")) {
				return;
			}
			Map<String, String> tokens = new LinkedHashMap<>();
			for (String key : line.substring(5).split(" ")) {
				String token = UUID.randomUUID().toString();
				long sentAt = System.nanoTime();
				say(out, "sending " + key + " " + sentAt);
				if (!store.tryAcquire(LockTemplate.DEFAULT_KEY_PREFIX + key, token, TTL).isAcquired()) {
					say(out, "failed " + key);
					return;
				}
				say(out, "wrote " + key + " " + sentAt);
				tokens.put(key, token);
			}
			say(out, "held");
			ScheduledExecutorService renewals = Executors.newSingleThreadScheduledExecutor();
			long period = TTL.toNanos() / 3;
			renewals.scheduleAtFixedRate(() -> tokens.forEach((key, token) -> {
				long sentAt = System.nanoTime();
				say(out, "sending " + key + " " + sentAt);
				if (store.extend(LockTemplate.DEFAULT_KEY_PREFIX + key, token, TTL)) {
					say(out, "wrote " + key + " " + sentAt);
				}
			}), period, period, TimeUnit.NANOSECONDS);
			// Hold until killed
			in.readLine();
			Runtime.getRuntime().halt(0);
		}

		private static void say(PrintStream out, String message) {
			synchronized (out) {
				out.println(PROTOCOL_PREFIX + message);
				out.flush();
			}
		}

	}

}
