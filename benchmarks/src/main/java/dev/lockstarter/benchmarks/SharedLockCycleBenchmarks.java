package dev.lockstarter.benchmarks;

import java.time.Duration;
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
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.redis.RedisServer;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The uncontended cycle of a permit (one of three) and of a read lock: acquire without
 * waiting, with a 30 second lease, then release, on one Redis server started per trial.
 * This starter's {@code LockTemplate} (permits and {@code LockKind.READ} on
 * {@code RedisLockStore}) beside Redisson's {@link RPermitExpirableSemaphore}
 * ({@code tryAcquire(0, lease)}, {@code release(id)}) and the read lock of its
 * {@code RReadWriteLock} ({@code tryLock(0, lease)}, {@code unlock()}). Each benchmark
 * starts only its own client, and cycles on one key.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(1)
public class SharedLockCycleBenchmarks {

	static final Duration TTL = Duration.ofSeconds(30);

	static final int PERMITS = 3;

	@Benchmark
	public boolean permitLockTemplate(Starter starter) {
		return starter.cycle("bench:permits", starter.permit);
	}

	@Benchmark
	public boolean permitRedisson(RedissonSide redisson) throws InterruptedException {
		String permit = redisson.semaphore.tryAcquire(0, TTL.toMillis(), TimeUnit.MILLISECONDS);
		if (permit == null) {
			return false;
		}
		redisson.semaphore.release(permit);
		return true;
	}

	@Benchmark
	public boolean readLockTemplate(Starter starter) {
		return starter.cycle("bench:doc", starter.read);
	}

	@Benchmark
	public boolean readLockRedisson(RedissonSide redisson) throws InterruptedException {
		if (!redisson.readLock.tryLock(0, TTL.toMillis(), TimeUnit.MILLISECONDS)) {
			return false;
		}
		redisson.readLock.unlock();
		return true;
	}

	/**
	 * A Redis server for one trial.
	 */
	public abstract static class Server {

		private RedisServer redis;

		@Setup(Level.Trial)
		public void start() {
			this.redis = RedisServer.start();
			open(this.redis.host(), this.redis.port());
		}

		@TearDown(Level.Trial)
		public void stop() {
			try {
				close();
			}
			finally {
				this.redis.close();
			}
		}

		abstract void open(String host, int port);

		abstract void close();

	}

	/**
	 * This starter: {@link LockTemplate} on {@link RedisLockStore}, as
	 * {@link Variant#LOCK_TEMPLATE} sets it up.
	 */
	@State(Scope.Benchmark)
	public static class Starter extends Server {

		final LockOptions permit = LockOptions.ttl(TTL).withKind(LockKind.permits(PERMITS));

		final LockOptions read = LockOptions.ttl(TTL).withKind(LockKind.READ);

		private LettuceConnectionFactory connectionFactory;

		private RedisLockStore store;

		private LockTemplate locks;

		@Override
		void open(String host, int port) {
			this.connectionFactory = Variant.connectionFactory(host, port);
			this.store = new RedisLockStore(this.connectionFactory);
			this.locks = new LockTemplate(this.store);
			// Connected before the first cycle, as Variant's set-up does
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				connection.ping();
			}
		}

		boolean cycle(String key, LockOptions options) {
			LockAttempt attempt = this.locks.tryAcquire(key, options);
			return attempt.isAcquired() && attempt.lease().release();
		}

		@Override
		void close() {
			try {
				this.locks.destroy();
				this.store.destroy();
			}
			finally {
				this.connectionFactory.destroy();
			}
		}

	}

	/**
	 * Redisson's semaphore of {@value #PERMITS} expirable permits and read/write lock.
	 */
	@State(Scope.Benchmark)
	public static class RedissonSide extends Server {

		private RedissonClient redisson;

		RPermitExpirableSemaphore semaphore;

		RLock readLock;

		@Override
		void open(String host, int port) {
			Config config = new Config();
			config.useSingleServer().setAddress("redis://" + host + ":" + port);
			this.redisson = Redisson.create(config);
			this.semaphore = this.redisson.getPermitExpirableSemaphore("bench:permits");
			this.semaphore.trySetPermits(PERMITS);
			this.readLock = this.redisson.getReadWriteLock("bench:doc").readLock();
		}

		@Override
		void close() {
			this.redisson.shutdown();
		}

	}

}
