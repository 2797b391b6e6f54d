package dev.lockstarter.benchmarks;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import dev.lockstarter.benchmarks.LockCycleBenchmarks.Keys;
import dev.lockstarter.benchmarks.LockCycleBenchmarks.Outcomes;
import dev.lockstarter.benchmarks.LockCycleBenchmarks.RedisLock;

/**
 * The uncontended acquire + release cycle of this starter's adapters (Spring
 * Integration's {@code LockRegistry}, ShedLock's {@code LockProvider} and
 * {@code java.util.concurrent.locks.Lock}) beside {@code LockTemplate}, which they run
 * on, and beside the peers they stand in for: Spring Integration's
 * {@code RedisLockRegistry} and ShedLock's {@code RedisLockProvider}. Run on its own by
 * {@code benchmarks/adapters.sh}.
 * <p>
 * The harness is {@link LockCycleBenchmarks}'s: the same per-trial Redis server and
 * client, the same {@link Keys key rotation} and the same {@link Outcomes outcome
 * accounting}, with one and with eight threads. Two forks rather than three, so that the
 * fourteen benchmarks fit in about ten minutes; {@code benchmarks/adapters.sh} runs them
 * as two passes of one fork each, in opposite orders, so that a drift of the machine's
 * load falls on every benchmark alike.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public abstract class AdapterCycleBenchmarks {

	@Benchmark
	public boolean lockTemplate(LockCycleBenchmarks.LockTemplate lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean lockRegistryAdapter(LockRegistryAdapter lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean lockProviderAdapter(LockProviderAdapter lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean leaseLock(LeaseLock lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean springIntegration(LockCycleBenchmarks.SpringIntegration lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean shedLock(LockCycleBenchmarks.ShedLock lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean shedLockSafeUpdate(LockCycleBenchmarks.ShedLockSafeUpdate lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	/**
	 * Every benchmark with one thread.
	 */
	@Threads(1)
	public static class OneThread extends AdapterCycleBenchmarks {

	}

	/**
	 * Every benchmark with eight threads sharing one client.
	 */
	@Threads(8)
	public static class EightThreads extends AdapterCycleBenchmarks {

	}

	// One state class per adapter, so that each benchmark starts only its own client.

	public static class LockRegistryAdapter extends RedisLock {

		@Override
		Variant variant() {
			return Variant.LOCK_REGISTRY_ADAPTER;
		}

	}

	public static class LockProviderAdapter extends RedisLock {

		@Override
		Variant variant() {
			return Variant.LOCK_PROVIDER_ADAPTER;
		}

	}

	public static class LeaseLock extends RedisLock {

		@Override
		Variant variant() {
			return Variant.LEASE_LOCK;
		}

	}

}
