package dev.lockstarter.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.integration.LockOperationsLockRegistry;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.memory.InMemoryLockStore;

/**
 * What each adapter's own code costs over {@link LockTemplate}, without Redis: the same
 * cycles as {@link AdapterCycleBenchmarks} on an {@link InMemoryLockStore}, one thread,
 * average time per cycle. The whole cycle then runs on the benchmark's thread, so its CPU
 * time per cycle, read from {@link ThreadMXBean} every {@value #CPU_READ_EVERY} cycles,
 * is the cost of the code, which the time per cycle also is on an idle machine; on a busy
 * one the thread waits for a core, which its CPU time does not count. Keys rotate through
 * 1024 values, as in the Redis benchmarks.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(1)
@State(Scope.Benchmark)
public class AdapterOverheadBenchmark {

	static final int CPU_READ_EVERY = 256;

	private static final Duration TTL = Duration.ofSeconds(30);

	private final LockOptions options = LockOptions.ttl(TTL);

	private final KeyRotation keys = new KeyRotation("bench:", 0);

	private LockTemplate locks;

	private LockOperationsLockRegistry registry;

	private LockOperationsLockProvider provider;

	@Setup(Level.Trial)
	public void start() {
		this.locks = new LockTemplate(new InMemoryLockStore());
		this.registry = new LockOperationsLockRegistry(this.locks, this.options);
		this.provider = new LockOperationsLockProvider(this.locks);
	}

	@TearDown(Level.Trial)
	public void stop() {
		this.locks.destroy();
	}

	@Benchmark
	public boolean lockTemplate(ThreadCpu cpu) {
		try (Lease lease = this.locks.acquire(this.keys.next(), TTL)) {
			return cpu.count(true);
		}
		catch (LockConflictException ex) {
			return cpu.count(false);
		}
	}

	@Benchmark
	public boolean leaseLock(ThreadCpu cpu) {
		return cpu.count(cycle(this.locks.lock(this.keys.next(), this.options)));
	}

	@Benchmark
	public boolean lockRegistryAdapter(ThreadCpu cpu) {
		return cpu.count(cycle(this.registry.obtain(this.keys.next())));
	}

	@Benchmark
	public boolean lockProviderAdapter(ThreadCpu cpu) {
		Optional<SimpleLock> lock = this.provider
			.lock(new LockConfiguration(Instant.now(), this.keys.next(), TTL, Duration.ZERO));
		lock.ifPresent(SimpleLock::unlock);
		return cpu.count(lock.isPresent());
	}

	private static boolean cycle(Lock lock) {
		if (!lock.tryLock()) {
			return false;
		}
		lock.unlock();
		return true;
	}

	/**
	 * The benchmark thread's CPU time and the cycles it covers, both read every
	 * {@value #CPU_READ_EVERY} cycles, and the cycles whose lock was not acquired: totals
	 * of each iteration, whose ratio is the CPU nanoseconds of one cycle.
	 */
	@State(Scope.Thread)
	@AuxCounters(AuxCounters.Type.EVENTS)
	public static class ThreadCpu {

		private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

		public long cpuNanos;

		public long cpuCycles;

		public long rejected;

		private long start;

		private long cycles;

		@Setup(Level.Iteration)
		public void reset() {
			this.cpuNanos = 0;
			this.cpuCycles = 0;
			this.rejected = 0;
			this.cycles = 0;
			this.start = THREADS.getCurrentThreadCpuTime();
		}

		boolean count(boolean acquired) {
			if (!acquired) {
				this.rejected++;
			}
			if (++this.cycles % CPU_READ_EVERY == 0) {
				this.cpuNanos = THREADS.getCurrentThreadCpuTime() - this.start;
				this.cpuCycles = this.cycles;
			}
			return acquired;
		}

	}

}
