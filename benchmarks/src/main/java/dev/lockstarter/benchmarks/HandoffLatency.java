package dev.lockstarter.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.dynamodb.DynamoDbLocalServer;
import dev.lockstarter.test.etcd.EtcdServer;
import dev.lockstarter.test.memcached.MemcachedServer;
import dev.lockstarter.test.postgres.PostgresServer;
import dev.lockstarter.test.redis.RedisServer;
import dev.lockstarter.test.zookeeper.ZooKeeperServer;

/**
 * Measures the handoff latency of waiting locks across JVMs: the time from the moment a
 * holder starts its release until a waiter in another JVM, blocked on the same key, has
 * acquired it. The holder runs in this JVM; each waiter runs in a child JVM of its own
 * ({@link HandoffWaiter}), as another application instance would, and every lock
 * implementation named (by default those of {@link HandoffLock} on Redis) is measured in
 * turn on one real server of its kind.
 * <p>
 * Both timestamps are {@link System#nanoTime()}, which on Linux reads the system-wide
 * monotonic clock, so times taken in two processes on one machine compare. Each handoff
 * is preceded by a pause long enough for the waiter to be asleep in its wait (30 to 93
 * ms, varied against its polling phase), so what is measured is a wake-up, not a spin.
 * <p>
 * Every implementation's waiter and holder are started and warmed up first; the measured
 * handoffs then run in {@link #ROUNDS} rounds that take turns between the
 * implementations, each round starting with the next one, so that a change in the
 * machine's state during the run (another process, the CPU's clock) falls on all of them
 * alike instead of on whichever was measured at that time.
 * <p>
 * A round-trip reference ({@link HandoffLock#roundTrip()}) has no waiter: its samples are
 * the time of one call of its client in this JVM, after the same pause, the unit in which
 * a store's handoff can be read.
 * <p>
 * Usage: {@code HandoffLatency <output.json> [LOCK ...]}; writes, per lock, the
 * percentiles and every sample ({@code samples_us}, in microseconds, sorted) as JSON, and
 * a summary to standard output.
 */
public final class HandoffLatency {

	static final int WARM_UP = 50;

	/**
	 * Handoffs run before the warm-up without its pause, so that the code of each lock is
	 * compiled as in a long-running server: none by default;
	 * {@code -Dhandoff.quickWarmUp=20000} measures warm JVMs, whose per-handoff code
	 * HotSpot has compiled with its optimizing compiler.
	 */
	static final int QUICK_WARM_UP = Integer.getInteger("handoff.quickWarmUp", 0);

	/**
	 * The measured handoffs per implementation: 1,000 by default, so that the 99th
	 * percentile is read among ten samples above it; {@code -Dhandoff.count=N} changes
	 * it.
	 */
	static final int HANDOFFS = Integer.getInteger("handoff.count", 1000);

	/**
	 * The rounds the measured handoffs are split into: {@link #HANDOFFS} divided by this,
	 * per implementation and round; {@code -Dhandoff.rounds=N} changes it.
	 */
	static final int ROUNDS = Integer.getInteger("handoff.rounds", 5);

	static final String PROTOCOL_PREFIX = "HANDOFF ";

	private HandoffLatency() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length < 1) {
			System.err.println("Usage: HandoffLatency <output.json> [" + Arrays.toString(HandoffLock.values()) + "]");
			System.exit(2);
		}
		List<HandoffLock> locks = new ArrayList<>();
		for (int i = 1; i < args.length; i++) {
			locks.add(HandoffLock.valueOf(args[i]));
		}
		if (locks.isEmpty()) {
			Arrays.stream(HandoffLock.values())
				.filter((lock) -> lock.server() == HandoffLock.Server.REDIS)
				.forEach(locks::add);
		}
		if (ROUNDS < 1 || HANDOFFS % ROUNDS != 0) {
			throw new IllegalArgumentException(
					"handoff.rounds must divide the " + HANDOFFS + " handoffs evenly, was " + ROUNDS);
		}
		try (Servers servers = new Servers()) {
			List<Session> sessions = new ArrayList<>();
			try {
				for (HandoffLock lock : locks) {
					sessions.add(Session.open(servers.address(lock.server()), lock));
				}
				for (Session session : sessions) {
					session.warmUp();
				}
				for (int round = 0; round < ROUNDS; round++) {
					for (int turn = 0; turn < sessions.size(); turn++) {
						sessions.get((round + turn) % sessions.size()).measure(HANDOFFS / ROUNDS);
					}
				}
			}
			finally {
				for (Session session : sessions) {
					session.close();
				}
			}
			StringBuilder json = new StringBuilder("{\n  \"handoffs\": " + HANDOFFS + ",\n  \"rounds\": " + ROUNDS
					+ ",\n  \"quick_warm_up\": " + QUICK_WARM_UP
					+ ",\n  \"waiter\": \"a separate JVM per lock implementation\",\n  \"setups\": {");
			String separator = "\n";
			for (Session session : sessions) {
				HandoffLock lock = session.lock;
				long[] micros = session.sortedMicros();
				System.out.printf(Locale.ROOT, "%-52s p50 %8.2f ms  p90 %8.2f ms  p99 %8.2f ms  max %8.2f ms%n",
						lock.description(), percentile(micros, 50) / 1000.0, percentile(micros, 90) / 1000.0,
						percentile(micros, 99) / 1000.0, micros[micros.length - 1] / 1000.0);
				json.append(separator)
					.append(String.format(Locale.ROOT,
							"    \"%s\": {\"description\": \"%s\", \"p50_us\": %d, \"p90_us\": %d, \"p99_us\": %d, "
									+ "\"max_us\": %d,\n      \"samples_us\": %s}",
							lock.name(), lock.description(), percentile(micros, 50), percentile(micros, 90),
							percentile(micros, 99), micros[micros.length - 1], jsonArray(micros)));
				separator = ",\n";
			}
			json.append("\n  }\n}\n");
			Files.writeString(Path.of(args[0]), json, StandardCharsets.UTF_8);
		}
		// DynamoDB Local, which runs in this JVM, leaves a thread behind that is no
		// daemon
		System.exit(0);
	}

	/**
	 * One implementation under measurement: its holder, in this JVM, and its waiter, in a
	 * child JVM, kept for the whole run.
	 */
	private static final class Session {

		private final HandoffLock lock;

		/** The waiter's JVM; {@code null} for a round trip, which has none. */
		private final @Nullable Process waiter;

		private final HandoffLock.Client holder;

		private final @Nullable Writer toWaiter;

		private final @Nullable BufferedReader fromWaiter;

		private final long[] micros = new long[HANDOFFS];

		private int measured;

		private int handoffs;

		private Session(HandoffLock lock, @Nullable Process waiter, HandoffLock.Client holder) {
			this.lock = lock;
			this.waiter = waiter;
			this.holder = holder;
			this.toWaiter = (waiter != null) ? new OutputStreamWriter(waiter.getOutputStream(), StandardCharsets.UTF_8)
					: null;
			this.fromWaiter = (waiter != null)
					? new BufferedReader(new InputStreamReader(waiter.getInputStream(), StandardCharsets.UTF_8)) : null;
		}

		static Session open(InetSocketAddress server, HandoffLock lock) throws Exception {
			if (lock.roundTrip()) {
				HandoffLock.Client client = lock.open(server.getHostString(), server.getPort());
				connect(client, lock);
				return new Session(lock, null, client);
			}
			Process waiter = new ProcessBuilder(javaBinary(), "-cp", System.getProperty("java.class.path"),
					HandoffWaiter.class.getName(), lock.name(), server.getHostString(),
					Integer.toString(server.getPort()))
				.redirectError(ProcessBuilder.Redirect.INHERIT)
				.start();
			Session session;
			try {
				HandoffLock.Client holder = lock.open(server.getHostString(), server.getPort());
				connect(holder, lock);
				session = new Session(lock, waiter, holder);
			}
			catch (Exception | Error ex) {
				waiter.destroyForcibly();
				throw ex;
			}
			try {
				expect(Objects.requireNonNull(session.fromWaiter), "started");
			}
			catch (Exception | Error ex) {
				session.close();
				throw ex;
			}
			return session;
		}

		/** Hand off without the pause, then with it, before anything is measured. */
		void warmUp() throws Exception {
			for (int i = 0; i < QUICK_WARM_UP; i++) {
				handoff(false);
			}
			for (int i = 0; i < WARM_UP; i++) {
				handoff(true);
			}
		}

		void measure(int count) throws Exception {
			for (int i = 0; i < count; i++) {
				this.micros[this.measured++] = handoff(true);
			}
		}

		/**
		 * Take the lock in the holder, let the waiter wait for it, release it and return
		 * the microseconds until the waiter had it.
		 */
		private long handoff(boolean pause) throws Exception {
			int number = this.handoffs++;
			String key = "handoff:" + this.lock.name().toLowerCase(Locale.ROOT) + ":" + number;
			Writer toWaiter = this.toWaiter;
			BufferedReader fromWaiter = this.fromWaiter;
			if (toWaiter == null || fromWaiter == null) {
				return roundTrip(pause, number, key);
			}
			this.holder.lock(key);
			toWaiter.write(key + "\n");
			toWaiter.flush();
			expect(fromWaiter, "waiting");
			if (pause) {
				// Let the waiter try, subscribe and fall asleep; vary the phase against
				// its polls.
				Thread.sleep(30 + (number & 0x3f));
			}
			long releasedAt = System.nanoTime();
			this.holder.unlock(key);
			long acquiredAt = Long.parseLong(expect(fromWaiter, "acquired"));
			return TimeUnit.NANOSECONDS.toMicros(acquiredAt - releasedAt);
		}

		/** The microseconds of the reference's {@code lock}, after the same pause. */
		private long roundTrip(boolean pause, int number, String key) throws Exception {
			if (pause) {
				Thread.sleep(30 + (number & 0x3f));
			}
			long start = System.nanoTime();
			this.holder.lock(key);
			long end = System.nanoTime();
			this.holder.unlock(key);
			return TimeUnit.NANOSECONDS.toMicros(end - start);
		}

		long[] sortedMicros() {
			long[] sorted = Arrays.copyOf(this.micros, this.measured);
			Arrays.sort(sorted);
			return sorted;
		}

		void close() throws Exception {
			Process waiter = this.waiter;
			Writer toWaiter = this.toWaiter;
			if (waiter == null || toWaiter == null) {
				this.holder.close();
				return;
			}
			try {
				toWaiter.write("quit\n");
				toWaiter.flush();
			}
			catch (IOException ex) {
				// The waiter is gone already
			}
			finally {
				try {
					this.holder.close();
				}
				finally {
					if (!waiter.waitFor(20, TimeUnit.SECONDS)) {
						waiter.destroyForcibly();
					}
				}
			}
		}

	}

	/**
	 * The servers of a run, one of each kind its locks need, started on first use.
	 */
	private static final class Servers implements AutoCloseable {

		private final Map<HandoffLock.Server, AutoCloseable> started = new EnumMap<>(HandoffLock.Server.class);

		private final Map<HandoffLock.Server, InetSocketAddress> addresses = new EnumMap<>(HandoffLock.Server.class);

		InetSocketAddress address(HandoffLock.Server kind) {
			return this.addresses.computeIfAbsent(kind, (k) -> switch (k) {
				case REDIS -> {
					RedisServer redis = RedisServer.start();
					this.started.put(k, redis);
					yield new InetSocketAddress(redis.host(), redis.port());
				}
				case ETCD -> {
					EtcdServer etcd = EtcdServer.start();
					this.started.put(k, etcd);
					URI endpoint = URI.create(etcd.endpoint());
					yield new InetSocketAddress(endpoint.getHost(), endpoint.getPort());
				}
				case ZOOKEEPER -> {
					ZooKeeperServer zooKeeper = ZooKeeperServer.start();
					this.started.put(k, zooKeeper);
					yield new InetSocketAddress(zooKeeper.host(), zooKeeper.port());
				}
				case POSTGRES -> {
					PostgresServer postgres = PostgresServer.start();
					this.started.put(k, postgres);
					PostgresHandoffClients.createTables(postgres);
					yield new InetSocketAddress(postgres.host(), postgres.port());
				}
				case MEMCACHED -> {
					MemcachedServer memcached = MemcachedServer.start();
					this.started.put(k, memcached);
					yield new InetSocketAddress(memcached.host(), memcached.port());
				}
				case DYNAMODB -> {
					DynamoDbLocalServer dynamoDb = DynamoDbLocalServer.start();
					this.started.put(k, dynamoDb);
					ClockStoreClients.createDynamoDbTable(dynamoDb.endpoint().toString());
					yield new InetSocketAddress(dynamoDb.host(), dynamoDb.port());
				}
			});
		}

		@Override
		public void close() throws Exception {
			for (AutoCloseable server : this.started.values()) {
				server.close();
			}
		}

	}

	/**
	 * Read the waiter's lines up to its next protocol line, which must be {@code word}.
	 */
	private static String expect(BufferedReader fromWaiter, String word) throws IOException {
		String line;
		while ((line = fromWaiter.readLine()) != null) {
			if (line.startsWith(PROTOCOL_PREFIX)) {
				String[] parts = line.substring(PROTOCOL_PREFIX.length()).split(" ", 2);
				if (!parts[0].equals(word)) {
					throw new IllegalStateException("Waiter said '" + line + "', expected '" + word + "'");
				}
				return (parts.length > 1) ? parts[1] : "";
			}
		}
		throw new IllegalStateException("Waiter exited before saying '" + word + "'");
	}

	private static String jsonArray(long[] values) {
		StringBuilder array = new StringBuilder("[");
		for (int i = 0; i < values.length; i++) {
			array.append((i > 0) ? ", " : "").append(values[i]);
		}
		return array.append(']').toString();
	}

	private static String javaBinary() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

	private static long percentile(long[] sorted, int percent) {
		int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
	}

	/**
	 * The waiter: a separate JVM that, for every key read from standard input, says it is
	 * waiting, takes the lock (blocking until the holder releases it), says when it got
	 * it, and releases it.
	 */
	/**
	 * Take and release a lock of its own once, so that the client's connections are open
	 * before anything is measured: in a JVM that has just started, the first connection
	 * can take longer than a client's command time-out (about 2 s on two busy cores), so
	 * a failed first try is tried again.
	 */
	static void connect(HandoffLock.Client client, HandoffLock lock) throws Exception {
		String key = "handoff-connect:" + lock.name().toLowerCase(Locale.ROOT) + ":" + ProcessHandle.current().pid();
		for (int attempt = 1;; attempt++) {
			try {
				client.lock(key);
				client.unlock(key);
				return;
			}
			catch (RuntimeException ex) {
				if (attempt == 3) {
					throw ex;
				}
			}
		}
	}

	public static final class HandoffWaiter {

		private HandoffWaiter() {
		}

		public static void main(String[] args) throws Exception {
			HandoffLock lock = HandoffLock.valueOf(args[0]);
			PrintStream out = System.out;
			try (HandoffLock.Client client = lock.open(args[1], Integer.parseInt(args[2]));
					BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
				connect(client, lock);
				out.println(PROTOCOL_PREFIX + "started");
				out.flush();
				String key;
				while ((key = in.readLine()) != null && !key.equals("quit")) {
					out.println(PROTOCOL_PREFIX + "waiting");
					out.flush();
					long acquiredAt = client.lockTimed(key);
					out.println(PROTOCOL_PREFIX + "acquired " + acquiredAt);
					out.flush();
					client.unlock(key);
				}
			}
			System.exit(0);
		}

	}

}
