package dev.lockstarter.benchmarks;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

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

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.store.jdbc.JdbcLockStore;

/**
 * The uncontended cycle of a permit (one of three) and of a read lock on PostgreSQL, as
 * {@link SharedLockCycleBenchmarks} measures them on Redis: acquire without waiting, with
 * a 30 second lease, then release, through {@code LockTemplate} on {@link JdbcLockStore}
 * (the state of {@link JdbcLockCycleBenchmarks}: a fresh PostgreSQL cluster and a pool of
 * 10). Also the renewal of a held place, {@code extendShared} on the store alone, which
 * the renewer sends every third of a lease. One thread, one key each.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(1)
public class JdbcSharedLockCycleBenchmarks {

	static final Duration TTL = Duration.ofSeconds(30);

	private static final LockOptions PERMIT = LockOptions.ttl(TTL)
		.withKind(LockKind.permits(SharedLockCycleBenchmarks.PERMITS));

	private static final LockOptions READ = LockOptions.ttl(TTL).withKind(LockKind.READ);

	@Benchmark
	public boolean permitLockTemplate(JdbcLockCycleBenchmarks.Postgres postgres) {
		return cycle(postgres, "bench:permits", PERMIT);
	}

	@Benchmark
	public boolean readLockTemplate(JdbcLockCycleBenchmarks.Postgres postgres) {
		return cycle(postgres, "bench:doc", READ);
	}

	@Benchmark
	public boolean extendPermit(HeldPermit held) {
		return held.postgres.store.extendShared(HeldPermit.KEY, held.token, TTL);
	}

	private static boolean cycle(JdbcLockCycleBenchmarks.Postgres postgres, String key, LockOptions options) {
		LockAttempt attempt = postgres.locks.tryAcquire(key, options);
		if (attempt.isAcquired()) {
			attempt.lease().release();
		}
		return attempt.isAcquired();
	}

	/**
	 * A permit held on the store for the whole trial, its place extended by each call.
	 */
	@State(Scope.Benchmark)
	public static class HeldPermit {

		static final String KEY = "bench:held";

		final JdbcLockCycleBenchmarks.Postgres postgres = new JdbcLockCycleBenchmarks.Postgres();

		final String token = UUID.randomUUID().toString();

		@Setup(Level.Trial)
		public void start() {
			this.postgres.start();
			if (!this.postgres.store.tryAcquirePermit(KEY, this.token, TTL, SharedLockCycleBenchmarks.PERMITS)
				.isAcquired()) {
				throw new IllegalStateException("The permit to extend was not granted");
			}
		}

		@TearDown(Level.Trial)
		public void stop() {
			this.postgres.stop();
		}

	}

}
