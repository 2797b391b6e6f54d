package dev.lockstarter.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The clock nemesis: moves each worker's wall clock while the workload runs, as NTP
 * stepping a clock, a VM resumed from a snapshot or a container without NTP would, and
 * leaves its monotonic clock alone. Every worker runs under libfaketime (see
 * {@link ChildJvm#faketime}) with an offset file of its own, which this nemesis rewrites:
 * <ul>
 * <li>a worker starts with a random offset within ± {@value #MAX_OFFSET_TTLS} × TTL;</li>
 * <li><em>step</em>: its offset jumps, forward or back, to a new random value within ±
 * {@value #MAX_OFFSET_TTLS} × TTL;</li>
 * <li><em>drift</em>: its offset moves in one direction by a series of small steps (up to
 * a tenth of the TTL each, 50 to 150 ms apart), as a clock running fast or slow would,
 * turning back at the bound.</li>
 * </ul>
 * Actions come at random times, a quarter to one TTL apart, each on a random live worker.
 * Every offset set, a worker's first among them, is marked in the oracle
 * ({@code M seq clock worker
 * offsetMillis millis}); the checker counts them. The oracle's timestamps and sequence
 * numbers do not depend on any worker's wall clock, so the verdict stays on the harness's
 * timeline.
 */
final class ClockNemesis {

	/** The largest offset from the true clock, in times the time-to-live. */
	static final int MAX_OFFSET_TTLS = 2;

	private final Duration ttl;

	private final Path directory;

	private final String prefix;

	private final Oracle oracle;

	private final Map<String, Long> offsets = new ConcurrentHashMap<>();

	/**
	 * Create a clock nemesis.
	 * @param ttl the locks' time-to-live, which scales the offsets
	 * @param directory where the offset files go
	 * @param prefix the start of the offset files' names (the scenario's name)
	 * @param oracle where each change is marked
	 */
	ClockNemesis(Duration ttl, Path directory, String prefix, Oracle oracle) {
		this.ttl = ttl;
		this.directory = directory;
		this.prefix = prefix;
		this.oracle = oracle;
	}

	/**
	 * Create the offset file of a worker about to start, with a random offset.
	 * @param worker the worker's id
	 * @return the file to give to {@link ChildJvm#builder}
	 */
	Path clockFile(String worker) {
		set(worker, randomOffset());
		return file(worker);
	}

	/**
	 * Move clocks until told to stop.
	 * @param running whether to go on
	 * @param live the ids of the live workers
	 */
	void run(BooleanSupplier running, Supplier<List<String>> live) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		long ttlMillis = this.ttl.toMillis();
		while (running.getAsBoolean()) {
			try {
				Thread.sleep(ttlMillis / 4 + random.nextLong(ttlMillis * 3 / 4));
				List<String> workers = live.get().stream().filter(this.offsets::containsKey).toList();
				if (workers.isEmpty()) {
					continue;
				}
				String worker = workers.get(random.nextInt(workers.size()));
				if (random.nextBoolean()) {
					set(worker, randomOffset());
				}
				else {
					drift(worker, running, random);
				}
			}
			catch (InterruptedException ex) {
				return;
			}
			catch (RuntimeException ex) {
				System.err.println("[" + this.prefix + "] clock nemesis action failed: " + ex);
			}
		}
	}

	private void drift(String worker, BooleanSupplier running, ThreadLocalRandom random) throws InterruptedException {
		long max = this.ttl.toMillis() * MAX_OFFSET_TTLS;
		long direction = random.nextBoolean() ? 1 : -1;
		int count = 5 + random.nextInt(16);
		for (int i = 0; i < count && running.getAsBoolean(); i++) {
			long offset = this.offsets.getOrDefault(worker, 0L);
			long next = offset + direction * (1 + random.nextLong(this.ttl.toMillis() / 10));
			if (Math.abs(next) > max) {
				direction = -direction;
				next = offset + direction * (1 + random.nextLong(this.ttl.toMillis() / 10));
			}
			set(worker, next);
			Thread.sleep(50 + random.nextLong(100));
		}
	}

	private void set(String worker, long offsetMillis) {
		this.offsets.put(worker, offsetMillis);
		write(file(worker), offsetMillis);
		this.oracle.mark("clock", worker + " " + offsetMillis);
	}

	private long randomOffset() {
		long max = this.ttl.toMillis() * MAX_OFFSET_TTLS;
		return ThreadLocalRandom.current().nextLong(-max, max + 1);
	}

	private Path file(String worker) {
		return this.directory.resolve(this.prefix + "-" + worker + ".faketime");
	}

	/**
	 * Write an offset so that a reader sees the old or the new file, never half of one:
	 * libfaketime opens the file again at every read of the clock.
	 */
	static void write(Path file, long offsetMillis) {
		Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
		try {
			Files.writeString(temporary, format(offsetMillis) + "\n");
			Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write the clock offset " + file, ex);
		}
	}

	/** An offset as libfaketime reads it, such as {@code +1.250s} or {@code -0.020s}. */
	static String format(long offsetMillis) {
		return String.format(Locale.ROOT, "%s%d.%03ds", (offsetMillis < 0) ? "-" : "+", Math.abs(offsetMillis) / 1000,
				Math.abs(offsetMillis) % 1000);
	}

}
