package dev.lockstarter.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
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
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.jdbc.JdbcLockStore;
import dev.lockstarter.test.postgres.PostgresServer;

/**
 * The uncontended acquire + release cycle of the JDBC store against a real PostgreSQL
 * server, to set next to {@link LockCycleBenchmarks}' Redis figures: through
 * {@link LockTemplate} (as {@code lockTemplate} there) and on the store alone. The state
 * starts a fresh PostgreSQL cluster ({@link PostgresServer}, {@code fsync} off) and a
 * HikariCP pool of 10 connections, as Spring Boot would configure one. Keys rotate as in
 * {@link LockCycleBenchmarks}, so after the first round every acquisition updates an
 * existing, free row.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public abstract class JdbcLockCycleBenchmarks {

	private static final Duration TTL = Duration.ofSeconds(30);

	@Benchmark
	public boolean jdbcLockTemplate(Postgres postgres, LockCycleBenchmarks.Keys keys,
			LockCycleBenchmarks.Outcomes outcomes) {
		try (Lease lease = postgres.locks.acquire(keys.next(), TTL)) {
			return outcomes.count(true);
		}
		catch (LockConflictException ex) {
			return outcomes.count(false);
		}
	}

	@Benchmark
	public boolean jdbcStore(Postgres postgres, LockCycleBenchmarks.Keys keys, LockCycleBenchmarks.Outcomes outcomes) {
		String key = "lock:" + keys.next();
		String token = Long.toHexString(System.nanoTime()) + Thread.currentThread().getId();
		boolean acquired = postgres.store.tryAcquire(key, token, TTL).isAcquired();
		if (acquired) {
			postgres.store.release(key, token);
		}
		return outcomes.count(acquired);
	}

	/**
	 * Every benchmark with one thread.
	 */
	@Threads(1)
	public static class OneThread extends JdbcLockCycleBenchmarks {

	}

	/**
	 * Every benchmark with eight threads sharing one pool.
	 */
	@Threads(8)
	public static class EightThreads extends JdbcLockCycleBenchmarks {

	}

	/**
	 * A PostgreSQL server, a pool and the store on it, for one trial.
	 */
	@State(Scope.Benchmark)
	public static class Postgres {

		private PostgresServer server;

		private HikariDataSource dataSource;

		JdbcLockStore store;

		LockTemplate locks;

		@Setup(Level.Trial)
		public void start() {
			this.server = PostgresServer.start();
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(this.server.jdbcUrl());
			config.setUsername(this.server.username());
			config.setMaximumPoolSize(10);
			this.dataSource = new HikariDataSource(config);
			this.store = new JdbcLockStore(this.dataSource);
			this.store.createSchema();
			this.locks = new LockTemplate(this.store);
		}

		@TearDown(Level.Trial)
		public void stop() {
			try {
				this.locks.destroy();
				this.store.close();
				this.dataSource.close();
			}
			finally {
				this.server.close();
			}
		}

	}

}
