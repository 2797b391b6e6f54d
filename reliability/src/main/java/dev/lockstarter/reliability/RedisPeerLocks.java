package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.config.Config;
import org.redisson.config.SentinelServersConfig;

import dev.lockstarter.test.redis.RedisSentinel;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * The peer libraries' locks on Redis, each set up as its documentation shows, with every
 * store call bounded by {@link StoreUnderTest#STORE_TIMEOUT} and a wait for the lock of
 * at most twice the time-to-live. Each {@link WorkerLock} opens one client, shared by the
 * threads of a worker, and closes it.
 * <p>
 * <b>Redisson</b> ({@link #redisson}): an {@link RLock}, or an {@link RFencedLock} whose
 * fencing token is the one its acquisition returns, taken without a lease time so that
 * Redisson's watchdog keeps extending it while the client lives; the time-to-live is the
 * watchdog timeout. Redisson's guide says a lock belongs to the thread that took it and
 * that the watchdog extends its expiry for as long as the client holding it is alive:
 * {@code isHeld()} is Redisson's own query of the store,
 * {@link RLock#isHeldByCurrentThread()}, asked on the section's thread (false if the
 * query fails). Releasing a lock no longer held throws
 * {@link IllegalMonitorStateException}, which is ignored: there is nothing to release,
 * and {@code isHeld()} has said so. Timeouts: commands and connection attempts 2 s; the
 * retries are Redisson's defaults (4 further attempts to send a command that could not be
 * sent, 1 to 2 s apart with jitter; a command once sent is not retried but times out).
 * <p>
 * <b>Spring Integration</b> ({@link #springIntegration}): a {@link RedisLockRegistry}
 * whose locks expire after the time-to-live, spinning or waiting for the release's
 * Pub/Sub message. The registry renews a lock only when given a renewal scheduler, an
 * option its reference guide describes without recommending it (it asks for an expiry
 * long enough for the work instead), so none is given. Its guide warns that unlocking a
 * lock whose key has expired throws, and that the protected data must then be treated as
 * possibly compromised: {@code isHeld()} is that unlock, true when it returns normally.
 * <p>
 * <b>ShedLock</b> ({@link #shedLock}): {@link RedisLockProvider} built as its README
 * shows, with a connection factory and an environment (not in its safe-update mode: the
 * release deletes the key without comparing its value), run through
 * {@link DefaultLockingTaskExecutor} ({@link ShedLockWorkerLock}).
 */
final class RedisPeerLocks {

	/** The prefix of a workload key's lock, as the harness's watcher reads it. */
	private static final String KEY_PREFIX = "lock:";

	/** The Spring Integration registry's key, which it puts before its locks'. */
	private static final String REGISTRY_KEY = "lock";

	/** ShedLock's environment, part of its keys: {@code job-lock:reliability:lock:k0}. */
	private static final String SHEDLOCK_ENVIRONMENT = "reliability";

	private RedisPeerLocks() {
	}

	/**
	 * Redisson's lock.
	 * @param backend {@link Backend#REDIS} or {@link Backend#SENTINEL}
	 * @param address {@code host:port}, or the sentinels' {@code host:port} addresses,
	 * comma-separated
	 * @param ttl the watchdog timeout
	 * @param fenced whether to take an {@link RFencedLock}
	 * @return the lock
	 */
	static WorkerLock redisson(Backend backend, String address, Duration ttl, boolean fenced) {
		RedissonClient client = Redisson.create(redissonConfig(backend, address, ttl));
		long wait = ttl.multipliedBy(2).toMillis();
		return WorkerLock.acquiring((key) -> {
			if (fenced) {
				RFencedLock lock = client.getFencedLock(KEY_PREFIX + key);
				Long token = redissonCall(() -> lock.tryLockAndGetToken(wait, TimeUnit.MILLISECONDS));
				return (token != null) ? new RedissonHeld(lock, token) : null;
			}
			RLock lock = client.getLock(KEY_PREFIX + key);
			Boolean acquired = redissonCall(() -> lock.tryLock(wait, TimeUnit.MILLISECONDS));
			return Boolean.TRUE.equals(acquired) ? new RedissonHeld(lock, 0) : null;
		}, client::shutdown);
	}

	static Config redissonConfig(Backend backend, String address, Duration ttl) {
		int timeout = (int) StoreUnderTest.STORE_TIMEOUT.toMillis();
		Config config = new Config();
		config.setLockWatchdogTimeout(ttl.toMillis());
		switch (backend) {
			case REDIS -> config.useSingleServer()
				.setAddress("redis://" + address)
				.setTimeout(timeout)
				.setConnectTimeout(timeout);
			case SENTINEL -> {
				SentinelServersConfig sentinels = config.useSentinelServers().setMasterName(RedisSentinel.MASTER_NAME);
				for (String sentinel : address.split(",")) {
					sentinels.addSentinelAddress("redis://" + sentinel);
				}
				sentinels.setTimeout(timeout).setConnectTimeout(timeout);
			}
			default -> throw new IllegalArgumentException("Redisson runs here on Redis or Sentinel, not " + backend);
		}
		return config;
	}

	/**
	 * Call Redisson, which reports an interrupted wait as a {@link RedisException} (its
	 * cause the {@link InterruptedException}, the thread's flag set again).
	 */
	private static <T> @Nullable T redissonCall(RedissonCall<T> call) throws InterruptedException {
		try {
			return call.call();
		}
		catch (RedisException ex) {
			if (ex.getCause() instanceof InterruptedException interrupted) {
				Thread.interrupted();
				throw interrupted;
			}
			throw ex;
		}
	}

	/**
	 * Spring Integration's lock.
	 * @param address {@code host:port}
	 * @param ttl the registry's expiry of a lock
	 * @param pubSub whether to wait for the release's Pub/Sub message instead of spinning
	 * @return the lock
	 */
	static WorkerLock springIntegration(String address, Duration ttl, boolean pubSub) {
		LettuceConnectionFactory connections = connections(address);
		RedisLockRegistry registry = new RedisLockRegistry(connections, REGISTRY_KEY, ttl);
		registry.setRedisLockType(pubSub ? RedisLockType.PUB_SUB_LOCK : RedisLockType.SPIN_LOCK);
		long wait = ttl.multipliedBy(2).toMillis();
		return WorkerLock.acquiring((key) -> {
			Lock lock = registry.obtain(key);
			return lock.tryLock(wait, TimeUnit.MILLISECONDS) ? new UnlockChecked(lock) : null;
		}, () -> {
			registry.destroy();
			connections.destroy();
		});
	}

	/**
	 * ShedLock's lock.
	 * @param address {@code host:port}
	 * @param ttl {@code lockAtMostFor}
	 * @return the lock
	 */
	static WorkerLock shedLock(String address, Duration ttl) {
		LettuceConnectionFactory connections = connections(address);
		LockingTaskExecutor executor = new DefaultLockingTaskExecutor(
				new RedisLockProvider(connections, SHEDLOCK_ENVIRONMENT));
		return new ShedLockWorkerLock(() -> executor, ttl, connections::destroy);
	}

	private static LettuceConnectionFactory connections(String address) {
		String[] hostPort = address.split(":");
		return Oracle.connectionFactory(hostPort[0], Integer.parseInt(hostPort[1]), StoreUnderTest.STORE_TIMEOUT);
	}

	/**
	 * A call to Redisson.
	 *
	 * @param <T> what it returns
	 */
	@FunctionalInterface
	private interface RedissonCall<T> {

		@Nullable T call() throws InterruptedException;

	}

	/**
	 * A Redisson lock held by the current thread, renewed by the watchdog.
	 */
	private record RedissonHeld(RLock lock, long fencingToken) implements WorkerLock.Held {

		@Override
		public boolean isHeld() {
			try {
				return this.lock.isHeldByCurrentThread();
			}
			catch (RuntimeException ex) {
				return false;
			}
		}

		@Override
		public void release() {
			try {
				this.lock.unlock();
			}
			catch (IllegalMonitorStateException ex) {
				// No longer held: nothing to release
			}
			catch (RuntimeException ex) {
				// Not answered: the unlock stopped the watchdog, the key expires
			}
		}

	}

}
