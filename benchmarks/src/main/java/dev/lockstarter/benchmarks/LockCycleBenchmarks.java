package dev.lockstarter.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import javax.management.JMException;
import javax.management.ObjectName;

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
import org.openjdk.jmh.infra.ThreadParams;

import dev.lockstarter.test.redis.RedisServer;

/**
 * The uncontended acquire + release cycle against a real Redis server, for every
 * {@link Variant}, with {@linkplain OneThread one thread} and with
 * {@linkplain EightThreads eight}.
 * <p>
 * Each benchmark method runs in its own forked JVM; its state starts a fresh
 * {@code redis-server} (same binary, same flags, empty) on a free loopback port in
 * {@code @Setup(Level.Trial)}, creates the variant's client, and stops both in
 * {@code @TearDown(Level.Trial)}. Each thread cycles through its own {@link KeyRotation},
 * so every lock is free when it is taken. An acquisition that fails anyway is counted as
 * {@code rejected} (reported by JMH as a secondary metric) rather than failing the run.
 * <p>
 * Three forks each: a JVM's thread placement and compilation are part of the noise, and
 * with one fork the error of a ratio to the floor (about ±0.11 with eight threads) was
 * wider than the gaps it is read against.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public abstract class LockCycleBenchmarks {

	@Benchmark
	public boolean rawLettuce(RawLettuce lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean lockTemplate(LockTemplate lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean lockTemplateParking(LockTemplateParking lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean redisson(Redisson lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean springIntegration(SpringIntegration lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean shedLock(ShedLock lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean shedLockSafeUpdate(ShedLockSafeUpdate lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	/**
	 * Every benchmark with one thread.
	 */
	@Threads(1)
	public static class OneThread extends LockCycleBenchmarks {

	}

	/**
	 * Every benchmark with eight threads sharing one client.
	 */
	@Threads(8)
	public static class EightThreads extends LockCycleBenchmarks {

	}

	/**
	 * A Redis server and one variant's client on it, for one trial.
	 */
	@State(Scope.Benchmark)
	public abstract static class RedisLock {

		private RedisServer redis;

		private LockCycle cycle;

		@Setup(Level.Trial)
		public void start() {
			this.redis = RedisServer.start();
			this.cycle = variant().open(this.redis.host(), this.redis.port());
		}

		@TearDown(Level.Trial)
		public void stop() {
			try {
				this.cycle.close();
			}
			finally {
				this.redis.close();
			}
		}

		abstract Variant variant();

		final boolean cycle(String key) {
			return this.cycle.cycle(key);
		}

	}

	// One state class per variant, so that each benchmark starts only its own client.

	public static class RawLettuce extends RedisLock {

		@Override
		Variant variant() {
			return Variant.RAW_LETTUCE;
		}

	}

	public static class LockTemplate extends RedisLock {

		@Override
		Variant variant() {
			return Variant.LOCK_TEMPLATE;
		}

	}

	public static class LockTemplateParking extends RedisLock {

		@Override
		Variant variant() {
			return Variant.LOCK_TEMPLATE_PARKING;
		}

	}

	public static class Redisson extends RedisLock {

		@Override
		Variant variant() {
			return Variant.REDISSON;
		}

	}

	public static class SpringIntegration extends RedisLock {

		@Override
		Variant variant() {
			return Variant.SPRING_INTEGRATION;
		}

	}

	public static class ShedLock extends RedisLock {

		@Override
		Variant variant() {
			return Variant.SHEDLOCK;
		}

	}

	public static class ShedLockSafeUpdate extends RedisLock {

		@Override
		Variant variant() {
			return Variant.SHEDLOCK_SAFE_UPDATE;
		}

	}

	/**
	 * The keys of one thread.
	 */
	@State(Scope.Thread)
	public static class Keys {

		private KeyRotation rotation;

		@Setup(Level.Trial)
		public void setUp(ThreadParams thread) {
			this.rotation = new KeyRotation("bench:", thread.getThreadIndex());
		}

		String next() {
			return this.rotation.next();
		}

	}

	/**
	 * Acquisitions that failed although the key was free, and this JVM's CPU time, both
	 * reported per second like the primary metric. The CPU time is the whole process's
	 * (the caller threads, the client's event loop, JMH), read every
	 * {@value #CPU_READ_EVERY} cycles and shared out equally among the threads, so that
	 * the threads' counters add up to it; divided by the cycles per second, it gives the
	 * CPU microseconds one cycle costs this JVM. Redis's own CPU time is not in it.
	 */
	@State(Scope.Thread)
	@AuxCounters(AuxCounters.Type.OPERATIONS)
	public static class Outcomes {

		static final int CPU_READ_EVERY = 256;

		private static final ObjectName OPERATING_SYSTEM = operatingSystem();

		public long rejected;

		public long cpuMicros;

		private long cpuStart;

		private int threads;

		private int cycles;

		@Setup(Level.Iteration)
		public void reset(ThreadParams params) {
			this.rejected = 0;
			this.cpuMicros = 0;
			this.cycles = 0;
			this.threads = params.getThreadCount();
			this.cpuStart = processCpuTime();
		}

		boolean count(boolean acquired) {
			if (!acquired) {
				this.rejected++;
			}
			if (++this.cycles % CPU_READ_EVERY == 0) {
				this.cpuMicros = (processCpuTime() - this.cpuStart) / 1000 / this.threads;
			}
			return acquired;
		}

		/**
		 * The JVM's CPU time in nanoseconds, read through JMX (the MBean's interface is
		 * not public API).
		 */
		private static long processCpuTime() {
			try {
				return (Long) ManagementFactory.getPlatformMBeanServer()
					.getAttribute(OPERATING_SYSTEM, "ProcessCpuTime");
			}
			catch (JMException ex) {
				throw new IllegalStateException("This JVM does not report its CPU time", ex);
			}
		}

		private static ObjectName operatingSystem() {
			try {
				return new ObjectName(ManagementFactory.OPERATING_SYSTEM_MXBEAN_NAME);
			}
			catch (JMException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
