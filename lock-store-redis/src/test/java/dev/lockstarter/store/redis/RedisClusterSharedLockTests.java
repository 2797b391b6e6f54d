package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.test.contract.PermitsChecker;
import dev.lockstarter.test.contract.ReadersWriterChecker;
import dev.lockstarter.test.contract.SharedLockWorkload;
import dev.lockstarter.test.redis.RedisCluster;
import dev.lockstarter.test.redis.RedisClusterExtension;
import dev.lockstarter.test.redis.RedisServer;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Permits and read/write locks of the {@link RedisLockStore} on a real Redis Cluster of
 * three masters: every key of a shared lock lies in its lock's hash slot, locks of keys
 * on different nodes each keep their limits under two instances, and a release is
 * announced by sharded pub/sub.
 */
class RedisClusterSharedLockTests {

	private static final Duration TTL = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisClusterExtension cluster = new RedisClusterExtension();

	private static LettuceConnectionFactory connectionFactory;

	private static LettuceConnectionFactory otherConnectionFactory;

	@BeforeAll
	static void createConnectionFactories() {
		connectionFactory = RedisClusterLockStoreTests.connectionFactory(cluster.nodeAddresses());
		otherConnectionFactory = RedisClusterLockStoreTests.connectionFactory(cluster.nodeAddresses());
	}

	@AfterAll
	static void destroyConnectionFactories() {
		if (connectionFactory != null) {
			connectionFactory.destroy();
		}
		if (otherConnectionFactory != null) {
			otherConnectionFactory.destroy();
		}
	}

	@Test
	void everyKeyOfASharedLockLiesInItsLocksHashSlot() {
		RedisLockStore store = connected(new RedisLockStore(connectionFactory));
		try {
			RedisCluster redis = cluster.server();
			Set<RedisServer> nodes = new HashSet<>();
			for (String value : List.of("alice", "a}b", "}x", "{", "x{y}z", "ü 锁", "bob", "carol")) {
				String key = "lock:Export.run:" + value;
				String lockKey = "lock:{Export.run:" + value + "}";
				RedisServer node = redis.nodeFor(lockKey);
				nodes.add(node);
				assertThat(store.tryAcquireWrite(key, "writer", TTL, Duration.ZERO).isAcquired()).isTrue();
				assertRefusedWithTime(store.tryAcquireWrite(key, "waiting", TTL, TTL));
				// A watched refusal
				try (ReleaseNotifyingLockStore.Subscription subscription = store.subscribe(key, () -> {
				})) {
					assertRefusedWithTime(store.tryAcquireRead(key, "reader", TTL));
				}
				for (String suffix : List.of("holders", "writers", "fence", "watched")) {
					String related = lockKey + ":" + suffix;
					assertThat(redis.keySlot(related)).as(related).isEqualTo(redis.keySlot(lockKey));
					assertThat(node.command("EXISTS", related)).as("%s on the lock's node", related).isEqualTo("1");
				}
				assertThat(store.releaseShared(key, "writer")).isTrue();
				assertThat(store.releaseShared(key, "waiting")).isFalse();
				assertThat(node.command("EXISTS", lockKey + ":holders", lockKey + ":watched")).isEqualTo("0");
			}
			assertThat(nodes).as("nodes that hold the locks").hasSizeGreaterThan(1);
		}
		finally {
			store.destroy();
		}
	}

	@Test
	void locksOnDifferentNodesKeepTheirLimitsUnderTwoInstances() throws Exception {
		RedisLockStore store = connected(new RedisLockStore(connectionFactory));
		RedisLockStore otherStore = connected(new RedisLockStore(otherConnectionFactory));
		LockTemplate locks = new LockTemplate(store);
		LockTemplate otherLocks = new LockTemplate(otherStore);
		try {
			RedisCluster redis = cluster.server();
			List<String> keys = new ArrayList<>();
			Set<RedisServer> nodes = new HashSet<>();
			for (int i = 0; keys.size() < 2; i++) {
				String key = "spread-" + i + "-" + UUID.randomUUID();
				if (nodes.add(redis.nodeFor("lock:{" + key + "}"))) {
					keys.add(key);
				}
			}
			SharedLockWorkload workload = new SharedLockWorkload(List.of(locks, otherLocks), 8, 10,
					Duration.ofMillis(3));
			LockOptions waiting = LockOptions.ttl(TTL).withWaitTime(Duration.ofSeconds(60));
			Set<Long> fencingTokens = ConcurrentHashMap.newKeySet();
			PermitsChecker.Result permits = workload.permits(keys.get(0), waiting.withKind(LockKind.permits(3)), 3,
					(lease) -> fencingTokens.add(lease.fencingToken()));
			assertThat(permits.violations()).as(permits.toString()).isZero();
			assertThat(permits.maxInside()).as("most holders inside at once, in %s", permits).isEqualTo(3);
			assertThat(fencingTokens).hasSize((int) permits.entries()).hasSize(80);
			ReadersWriterChecker.Result readWrite = workload.readersAndWriter(keys.get(1),
					waiting.withKind(LockKind.READ), waiting.withKind(LockKind.WRITE), (thread) -> thread % 4 == 0);
			assertThat(readWrite.violations()).as("a writer inside with another holder, in %s", readWrite).isZero();
			assertThat(readWrite.maxReaders()).as("readers inside together, in %s", readWrite).isGreaterThan(1);
		}
		finally {
			locks.destroy();
			otherLocks.destroy();
			store.destroy();
			otherStore.destroy();
		}
	}

	@Test
	void aReleaseIsAnnouncedToAWaiterOfAnotherApplicationByShardedPubSub() throws Exception {
		RedisLockStore holderStore = connected(new RedisLockStore(connectionFactory));
		RedisLockStore waiterStore = connected(new RedisLockStore(otherConnectionFactory));
		try {
			String key = "lock:announced-" + UUID.randomUUID();
			String channel = "lock:{" + key.substring("lock:".length()) + "}:released";
			RedisServer node = cluster.server().nodeFor(channel);
			assertThat(holderStore.tryAcquireRead(key, "reader", TTL).isAcquired()).isTrue();
			CountDownLatch released = new CountDownLatch(1);
			try (ReleaseNotifyingLockStore.Subscription subscription = waiterStore.subscribe(key,
					released::countDown)) {
				awaitShardSubscribers(node, channel);
				// The waiter's refused attempt asks for the announcement
				assertThat(waiterStore.tryAcquireWrite(key, "writer", TTL, TTL).isAcquired()).isFalse();
				assertThat(holderStore.releaseShared(key, "reader")).isTrue();
				// Only a notification calls the listener: nothing polls here
				assertThat(released.await(5, TimeUnit.SECONDS)).as("release notification received").isTrue();
			}
			assertThat(waiterStore.tryAcquireWrite(key, "writer", TTL, Duration.ZERO).isAcquired()).isTrue();
		}
		finally {
			holderStore.destroy();
			waiterStore.destroy();
		}
	}

	private static void awaitShardSubscribers(RedisServer node, String channel) throws InterruptedException {
		await("the sharded subscriber of " + channel).atMost(Duration.ofSeconds(5))
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(10))
			.untilAsserted(() -> assertThat(shardSubscribers(node, channel)).as("sharded subscribers of %s", channel)
				.isEqualTo(1));
	}

	private static int shardSubscribers(RedisServer node, String channel) {
		String[] reply = node.command("PUBSUB", "SHARDNUMSUB", channel).split("\n");
		return Integer.parseInt(reply[reply.length - 1].strip());
	}

	/**
	 * Return the store once it answers: a busy machine may take more than the timeout to
	 * open a store's first connections to the cluster.
	 */
	private static RedisLockStore connected(RedisLockStore store) {
		await("the store's connections to the cluster").atMost(Duration.ofSeconds(30))
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(10))
			.ignoreException(LockStoreException.class)
			.until(() -> store.sharedTimeToExpiry("lock:connect-" + UUID.randomUUID()) != null);
		return store;
	}

	private static void assertRefusedWithTime(AcquireReply reply) {
		assertThat(reply.isAcquired()).isFalse();
		assertThat(reply.holderRemainingTtl()).isPositive();
	}

}
