package dev.lockstarter.benchmarks;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.ReactiveLockTemplate;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * The waiting locks on Redis whose handoff {@link HandoffLatency} measures besides this
 * starter's blocking {@link HandoffLock.StarterClient}: its reactive template, Redisson's
 * lock, Spring Integration's registry, and the store without its notifications.
 */
final class RedisHandoffClients {

	private RedisHandoffClients() {
	}

	/**
	 * The blocking client's store and template, acquired and released through a
	 * {@link ReactiveLockTemplate} over that template.
	 */
	static final class ReactiveStarterClient implements HandoffLock.Client {

		private final HandoffLock.StarterClient blocking;

		private final ReactiveLockTemplate reactiveLocks;

		private final Map<String, Lease> leases = new HashMap<>();

		ReactiveStarterClient(String host, int port) {
			this.blocking = HandoffLock.StarterClient.redis(host, port, true);
			this.reactiveLocks = new ReactiveLockTemplate(this.blocking.locks());
		}

		@Override
		public void lock(String key) {
			LockAttempt attempt = this.reactiveLocks.tryAcquire(key, this.blocking.options())
				.block(HandoffLock.MAX_WAIT.plusSeconds(5));
			if (attempt == null || !attempt.isAcquired()) {
				throw new IllegalStateException(
						"ReactiveLockTemplate did not acquire " + key + " within " + HandoffLock.MAX_WAIT);
			}
			this.leases.put(key, attempt.lease());
		}

		@Override
		public void unlock(String key) {
			this.reactiveLocks.release(this.leases.remove(key)).block(HandoffLock.MAX_WAIT);
		}

		@Override
		public void close() {
			this.blocking.close();
		}

	}

	static final class RedissonClientLock implements HandoffLock.Client {

		private final RedissonClient redisson;

		RedissonClientLock(String host, int port) {
			Config config = new Config();
			config.useSingleServer().setAddress("redis://" + host + ":" + port);
			this.redisson = Redisson.create(config);
		}

		@Override
		public void lock(String key) throws InterruptedException {
			RLock lock = this.redisson.getLock(key);
			if (!lock.tryLock(HandoffLock.MAX_WAIT.toMillis(), HandoffLock.TTL.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException("Redisson did not acquire " + key + " within " + HandoffLock.MAX_WAIT);
			}
		}

		@Override
		public void unlock(String key) {
			this.redisson.getLock(key).unlock();
		}

		@Override
		public void close() {
			this.redisson.shutdown();
		}

	}

	static final class SpringIntegrationClient implements HandoffLock.Client {

		private final LettuceConnectionFactory connectionFactory;

		private final RedisLockRegistry registry;

		private final Map<String, Lock> locks = new HashMap<>();

		SpringIntegrationClient(String host, int port, RedisLockRegistry.RedisLockType type) {
			this.connectionFactory = Variant.connectionFactory(host, port);
			this.registry = new RedisLockRegistry(this.connectionFactory, "handoff-registry", HandoffLock.TTL);
			this.registry.setRedisLockType(type);
		}

		@Override
		public void lock(String key) throws InterruptedException {
			Lock lock = this.registry.obtain(key);
			if (!lock.tryLock(HandoffLock.MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException(
						"RedisLockRegistry did not acquire " + key + " within " + HandoffLock.MAX_WAIT);
			}
			this.locks.put(key, lock);
		}

		@Override
		public void unlock(String key) {
			this.locks.remove(key).unlock();
		}

		@Override
		public void close() {
			this.registry.destroy();
			this.connectionFactory.destroy();
		}

	}

	/**
	 * The Redis store without its release notifications.
	 */
	record PollingOnly(LockStore store) implements LockStore {

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			return this.store.tryAcquire(key, token, ttl);
		}

		@Override
		public boolean release(String key, String token) {
			return this.store.release(key, token);
		}

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			return this.store.extend(key, token, ttl);
		}

		@Override
		public boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl) {
			return this.store.extendAll(keys, tokens, ttl);
		}

		@Override
		public Duration timeToExpiry(String key) {
			return this.store.timeToExpiry(key);
		}

	}

}
