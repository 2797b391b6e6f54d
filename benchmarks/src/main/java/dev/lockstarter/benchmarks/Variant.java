package dev.lockstarter.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LeaseLock;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockAttemptWithResult;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.integration.LockOperationsLockRegistry;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * The Redis lock implementations measured side by side, each set up as an application
 * would set it up by default, with one exception noted on {@link #SPRING_INTEGRATION}.
 * <p>
 * Every variant takes the lock with a {@link #TTL time-to-live} of 30 seconds and
 * releases it at once. The Spring-based variants each get their own
 * {@link LettuceConnectionFactory} with Spring Boot's default settings: one shared native
 * connection that all threads multiplex their commands over. The raw Lettuce floor uses
 * one shared connection as well, so that the floor and the Spring-based variants differ
 * only in the code above the connection. Redisson manages its own connection pool (its
 * defaults: up to 64 connections, 32 Netty threads); it cannot be told to share a Lettuce
 * connection.
 */
enum Variant {

	/**
	 * The floor: {@code SET key token NX PX ttl}, then an {@code EVALSHA} of a
	 * compare-and-delete script, on a plain Lettuce sync connection. The token is 128
	 * bits from {@link ThreadLocalRandom}, the cheapest unique-enough value.
	 */
	RAW_LETTUCE("raw Lettuce (SET NX PX + EVALSHA compare-and-delete)") {
		@Override
		LockCycle open(String host, int port) {
			return new RawLettuceCycle(host, port);
		}
	},

	/**
	 * This starter's programmatic API: {@link LockTemplate} on {@link RedisLockStore} on
	 * a {@link LettuceConnectionFactory}.
	 */
	LOCK_TEMPLATE("lock-starter LockTemplate on RedisLockStore") {
		@Override
		LockCycle open(String host, int port) {
			return new LockTemplateCycle(host, port);
		}
	},

	/**
	 * {@link #LOCK_TEMPLATE} with a reply spin of zero: every caller parks until
	 * Lettuce's event loop hands it Redis's answer, as the floor does. A reference line
	 * for what the spin gains and costs.
	 */
	LOCK_TEMPLATE_PARKING("lock-starter LockTemplate on RedisLockStore, reply spin 0") {
		@Override
		LockCycle open(String host, int port) {
			return new LockTemplateCycle(host, port, ResultPath.NONE, Duration.ZERO);
		}
	},

	/**
	 * The store calls of a single-flight holder ({@code onConflict = SHARE_RESULT}), as
	 * the interceptor makes them: an acquisition that reads the result already kept
	 * ({@code LockResults.tryAcquireReadingResult}), then the result kept and the lock
	 * released together ({@code Lease.releaseKeepingResult}). Counted by
	 * {@link CommandsPerCycle} only.
	 */
	SINGLE_FLIGHT_HOLDER("lock-starter single-flight holder (read the kept result + acquire; keep + release)") {
		@Override
		LockCycle open(String host, int port) {
			return new LockTemplateCycle(host, port, ResultPath.SINGLE_FLIGHT);
		}
	},

	/**
	 * The store calls of an {@code @IdempotentRequest} that runs, as the interceptor
	 * makes them: an acquisition, a read of the response kept for the key (under the
	 * lock), then the response kept and the lock released together. Counted by
	 * {@link CommandsPerCycle} only.
	 */
	IDEMPOTENT_REQUEST("lock-starter idempotent request (acquire; read the kept response; keep + release)") {
		@Override
		LockCycle open(String host, int port) {
			return new LockTemplateCycle(host, port, ResultPath.IDEMPOTENT);
		}
	},

	/**
	 * Redisson's {@link RLock}: {@code tryLock(0, ttl, MILLISECONDS)} and
	 * {@code unlock()}.
	 */
	REDISSON("Redisson RLock") {
		@Override
		LockCycle open(String host, int port) {
			return new RedissonCycle(host, port);
		}
	},

	/**
	 * Spring Integration's {@link RedisLockRegistry}: {@code obtain(key).tryLock()} and
	 * {@code unlock()}. Its cache of lock objects (default capacity 256, least recently
	 * used evicted) is raised to {@value #SPRING_INTEGRATION_CACHE_CAPACITY} so that it
	 * holds every key of the benchmark's rotation; that also sizes its striped local
	 * locks to as many stripes.
	 */
	SPRING_INTEGRATION("Spring Integration RedisLockRegistry") {
		@Override
		LockCycle open(String host, int port) {
			LettuceConnectionFactory connections = connectionFactory(host, port);
			RedisLockRegistry registry = new RedisLockRegistry(connections, "bench-registry", TTL);
			registry.setCacheCapacity(SPRING_INTEGRATION_CACHE_CAPACITY);
			return LockCycle.tryLock(registry::obtain, () -> {
				registry.destroy();
				connections.destroy();
			});
		}
	},

	/**
	 * ShedLock's {@link RedisLockProvider} as its public constructor builds it:
	 * {@code lock(..)} is {@code SET NX PX}, {@code unlock()} a plain {@code DEL} that
	 * does not check the owner.
	 */
	SHEDLOCK("ShedLock RedisLockProvider (default: unlock = DEL)") {
		@Override
		LockCycle open(String host, int port) {
			return shedLock(host, port, false);
		}
	},

	/**
	 * ShedLock's {@link RedisLockProvider} built with {@code safeUpdate(true)}: the
	 * unlock is an owner-checked compare-and-delete script, like this starter's.
	 */
	SHEDLOCK_SAFE_UPDATE("ShedLock RedisLockProvider (safeUpdate: unlock = compare-and-delete)") {
		@Override
		LockCycle open(String host, int port) {
			return shedLock(host, port, true);
		}
	},

	/**
	 * This starter's Spring Integration adapter, {@link LockOperationsLockRegistry}, on
	 * the {@link #LOCK_TEMPLATE} set-up: {@code obtain(key).tryLock()} and
	 * {@code unlock()}, as for {@link #SPRING_INTEGRATION}.
	 */
	LOCK_REGISTRY_ADAPTER("lock-starter LockOperationsLockRegistry (Spring Integration adapter)") {
		@Override
		LockCycle open(String host, int port) {
			Starter starter = new Starter(host, port, null);
			LockOperationsLockRegistry registry = new LockOperationsLockRegistry(starter.locks(), LockOptions.ttl(TTL));
			return LockCycle.tryLock(registry::obtain, starter::close);
		}
	},

	/**
	 * This starter's ShedLock adapter, {@link LockOperationsLockProvider}, on the
	 * {@link #LOCK_TEMPLATE} set-up: {@code lock(configuration)} and {@code unlock()}, as
	 * for {@link #SHEDLOCK}.
	 */
	LOCK_PROVIDER_ADAPTER("lock-starter LockOperationsLockProvider (ShedLock adapter)") {
		@Override
		LockCycle open(String host, int port) {
			Starter starter = new Starter(host, port, null);
			return LockCycle.shedLock(new LockOperationsLockProvider(starter.locks()), TTL, starter::close);
		}
	},

	/**
	 * This starter's {@link java.util.concurrent.locks.Lock}, {@link LeaseLock}, on the
	 * {@link #LOCK_TEMPLATE} set-up: {@code template.lock(key, options)} for every cycle,
	 * then {@code tryLock()} and {@code unlock()}.
	 */
	LEASE_LOCK("lock-starter LeaseLock (java.util.concurrent.locks.Lock)") {
		@Override
		LockCycle open(String host, int port) {
			Starter starter = new Starter(host, port, null);
			LockOptions options = LockOptions.ttl(TTL);
			return LockCycle.tryLock((key) -> starter.locks().lock(key, options), starter::close);
		}
	};

	/** The store calls made besides the lock's: see {@link LockTemplateCycle}. */
	enum ResultPath {

		NONE, SINGLE_FLIGHT, IDEMPOTENT

	}

	/** The result kept by the result paths: a small JSON document. */
	static final byte[] RESULT = "{\"sum\":3}".getBytes(StandardCharsets.UTF_8);

	/** The time-to-live of every lock taken. */
	static final Duration TTL = Duration.ofSeconds(30);

	/** Capacity of Spring Integration's lock cache: 8 threads x 1024 keys. */
	static final int SPRING_INTEGRATION_CACHE_CAPACITY = 8 * KeyRotation.KEYS_PER_THREAD;

	private final String description;

	Variant(String description) {
		this.description = description;
	}

	/**
	 * Return a human-readable description of the variant.
	 * @return the description
	 */
	String description() {
		return this.description;
	}

	/**
	 * Create the variant's client on a Redis server, ready to use.
	 * @param host the server's host
	 * @param port the server's port
	 * @return the lock cycle
	 */
	abstract LockCycle open(String host, int port);

	/**
	 * ShedLock's {@link RedisLockProvider} on a connection factory of its own.
	 * @param host the server's host
	 * @param port the server's port
	 * @param safeUpdate whether the unlock is an owner-checked compare-and-delete
	 * @return the lock cycle
	 */
	static LockCycle shedLock(String host, int port, boolean safeUpdate) {
		LettuceConnectionFactory connections = connectionFactory(host, port);
		RedisLockProvider provider = safeUpdate ? new RedisLockProvider.Builder(connections).safeUpdate(true).build()
				: new RedisLockProvider(connections);
		return LockCycle.shedLock(provider, TTL, connections::destroy);
	}

	static LettuceConnectionFactory connectionFactory(String host, int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private static final class RawLettuceCycle implements LockCycle {

		private static final String RELEASE = """
				if redis.call('GET', KEYS[1]) == ARGV[1] then
				  return redis.call('DEL', KEYS[1])
				end
				return 0
				""";

		private final RedisClient client;

		private final StatefulRedisConnection<String, String> connection;

		private final RedisCommands<String, String> commands;

		private final SetArgs setArgs = SetArgs.Builder.nx().px(TTL.toMillis());

		private final String releaseSha;

		RawLettuceCycle(String host, int port) {
			this.client = RedisClient.create(RedisURI.create(host, port));
			this.connection = this.client.connect();
			this.commands = this.connection.sync();
			this.releaseSha = this.commands.scriptLoad(RELEASE);
		}

		@Override
		public boolean cycle(String key) {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			String token = Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
			if (!"OK".equals(this.commands.set(key, token, this.setArgs))) {
				return false;
			}
			Long deleted = this.commands.evalsha(this.releaseSha, ScriptOutputType.INTEGER, new String[] { key },
					token);
			return deleted != null && deleted == 1L;
		}

		@Override
		public void close() {
			this.connection.close();
			this.client.shutdown();
		}

	}

	/**
	 * This starter as {@link #LOCK_TEMPLATE} sets it up: {@link LockTemplate} on
	 * {@link RedisLockStore} on a {@link LettuceConnectionFactory}, which every variant
	 * of this starter runs on.
	 */
	private static final class Starter implements AutoCloseable {

		private final LettuceConnectionFactory connectionFactory;

		private final RedisLockStore store;

		private final LockTemplate locks;

		Starter(String host, int port, @Nullable Duration replySpin) {
			this.connectionFactory = connectionFactory(host, port);
			this.store = new RedisLockStore(this.connectionFactory);
			if (replySpin != null) {
				this.store.setReplySpin(replySpin);
			}
			this.locks = new LockTemplate(this.store);
			// Connected before the first cycle: on a busy machine a JVM's first
			// connection
			// (Lettuce's and Netty's classes loaded, the handshake) can outlast the
			// store's
			// timeout (2 s), which the first cycle would otherwise spend on it
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				connection.ping();
			}
		}

		LockTemplate locks() {
			return this.locks;
		}

		@Override
		public void close() {
			try {
				this.locks.destroy();
				this.store.destroy();
			}
			catch (Exception ex) {
				throw new IllegalStateException("Failed to close the lock template", ex);
			}
			finally {
				this.connectionFactory.destroy();
			}
		}

	}

	private static final class LockTemplateCycle implements LockCycle {

		private final Starter starter;

		private final LockTemplate locks;

		private final ResultPath path;

		private final LockOptions options = LockOptions.ttl(TTL);

		LockTemplateCycle(String host, int port) {
			this(host, port, ResultPath.NONE);
		}

		LockTemplateCycle(String host, int port, ResultPath path) {
			this(host, port, path, null);
		}

		LockTemplateCycle(String host, int port, ResultPath path, @Nullable Duration replySpin) {
			this.starter = new Starter(host, port, replySpin);
			this.locks = this.starter.locks();
			this.path = path;
		}

		@Override
		public boolean cycle(String key) {
			switch (this.path) {
				case SINGLE_FLIGHT -> {
					LockAttemptWithResult attempt = this.locks.results()
						.orElseThrow()
						.tryAcquireReadingResult(key, this.options);
					if (!attempt.attempt().isAcquired()) {
						return false;
					}
					try (Lease lease = attempt.attempt().lease()) {
						return lease.releaseKeepingResult(RESULT, TTL);
					}
				}
				case IDEMPOTENT -> {
					LockAttempt attempt = this.locks.tryAcquire(key, this.options);
					if (!attempt.isAcquired()) {
						return false;
					}
					try (Lease lease = attempt.lease()) {
						this.locks.results().orElseThrow().findResult(key);
						return lease.releaseKeepingResult(RESULT, TTL);
					}
				}
				default -> {
					try (Lease lease = this.locks.acquire(key, TTL)) {
						return true;
					}
					catch (LockConflictException ex) {
						return false;
					}
				}
			}
		}

		@Override
		public void close() {
			this.starter.close();
		}

	}

	private static final class RedissonCycle implements LockCycle {

		private final RedissonClient redisson;

		RedissonCycle(String host, int port) {
			Config config = new Config();
			config.useSingleServer().setAddress("redis://" + host + ":" + port);
			this.redisson = Redisson.create(config);
		}

		@Override
		public boolean cycle(String key) {
			RLock lock = this.redisson.getLock(key);
			try {
				if (!lock.tryLock(0, TTL.toMillis(), TimeUnit.MILLISECONDS)) {
					return false;
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while taking the lock", ex);
			}
			lock.unlock();
			return true;
		}

		@Override
		public void close() {
			this.redisson.shutdown();
		}

	}

}
