package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.ReleaseNotifyingLockStore.Subscription;
import dev.lockstarter.store.redis.RedisLockStore.SubscriptionState;
import dev.lockstarter.test.contract.LockOperationsContractTests;
import dev.lockstarter.test.contract.LockStoreContractTests;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link RedisLockStore} on a {@link JedisConnectionFactory}: operations run through
 * {@code RedisTemplate}, bounded by Jedis' own socket timeout, and the release
 * subscription holds its daemon thread while it lasts. Both contract suites, release
 * notifications, and the end of the subscription thread on {@code destroy()}.
 */
class JedisLockStoreTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static JedisConnectionFactory connectionFactory;

	@BeforeAll
	static void createConnectionFactory() {
		JedisClientConfiguration client = JedisClientConfiguration.builder()
			.readTimeout(Duration.ofSeconds(2))
			.connectTimeout(Duration.ofSeconds(2))
			.build();
		connectionFactory = new JedisConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()),
				client);
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
	}

	@AfterAll
	static void destroyConnectionFactory() {
		if (connectionFactory != null) {
			connectionFactory.destroy();
		}
	}

	@Test
	void releaseIsAnnouncedThroughABlockingSubscriptionThatDestroyEnds() throws Exception {
		RedisLockStore holderStore = new RedisLockStore(connectionFactory);
		RedisLockStore waiterStore = new RedisLockStore(connectionFactory);
		LockTemplate holderLocks = new LockTemplate(holderStore);
		try {
			Set<Thread> before = subscriberThreads();
			Lease lease = holderLocks.acquire("jedis-announced", Duration.ofSeconds(30));
			CountDownLatch released = new CountDownLatch(1);
			try (Subscription subscription = waiterStore.subscribe("lock:jedis-announced", released::countDown)) {
				RedisOutages.awaitSubscriptionState(waiterStore, SubscriptionState.CONNECTED);
				// A waiter's attempt asks for the announcement
				assertThat(
						waiterStore.tryAcquire("lock:jedis-announced", "waiter", Duration.ofSeconds(30)).isAcquired())
					.isFalse();
				lease.release();
				assertThat(released.await(5, TimeUnit.SECONDS)).as("release notification received").isTrue();
			}
			Set<Thread> started = subscriberThreads();
			started.removeAll(before);
			assertThat(started).hasSize(1);
			waiterStore.destroy();
			Thread thread = started.iterator().next();
			thread.join(5000);
			assertThat(thread.isAlive()).as("subscriber thread alive after destroy").isFalse();
		}
		finally {
			holderLocks.destroy();
			holderStore.destroy();
			waiterStore.destroy();
		}
	}

	private static Set<Thread> subscriberThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().startsWith("lock-redis-release-subscriber"))
			.collect(Collectors.toSet());
	}

	@Nested
	class StoreContract extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new RedisLockStore(connectionFactory);
		}

		@Override
		protected boolean issuesFencingTokens() {
			return true;
		}

		@Override
		protected void destroyStore(LockStore store) {
			((RedisLockStore) store).destroy();
		}

	}

	@Nested
	class OperationsContract extends LockOperationsContractTests {

		@Override
		protected LockStore createStore() {
			return new RedisLockStore(connectionFactory);
		}

		@Override
		protected boolean issuesFencingTokens() {
			return true;
		}

		@Override
		protected void destroyStore(LockStore store) {
			((RedisLockStore) store).destroy();
		}

	}

}
