package dev.lockstarter.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.StoredLock;
import dev.lockstarter.test.contract.LockOperationsContractTests;
import dev.lockstarter.test.contract.LockStoreContractTests;
import dev.lockstarter.test.contract.WatchedLockStore;
import dev.lockstarter.test.redis.RedisCluster;
import dev.lockstarter.test.redis.RedisClusterExtension;
import dev.lockstarter.test.redis.RedisServer;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@link RedisLockStore} on a real Redis Cluster of three masters: both contract
 * suites, the slot of every key of a lock, renewal of locks spread over every node in one
 * call, the listing of locks spread over every node (through Lettuce and Jedis), and
 * release notifications by sharded pub/sub to a waiter of another application, on a
 * release and on a force-release.
 */
class RedisClusterLockStoreTests {

	@RegisterExtension
	static final RedisClusterExtension cluster = new RedisClusterExtension();

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void createConnectionFactory() {
		connectionFactory = connectionFactory(cluster.nodeAddresses());
	}

	@AfterAll
	static void destroyConnectionFactory() {
		if (connectionFactory != null) {
			connectionFactory.destroy();
		}
	}

	static LettuceConnectionFactory connectionFactory(List<String> nodes) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(5))
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(nodes), client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	@Test
	void keysOfOneLockShareTheLocksHashSlot() {
		RedisLockStore store = new RedisLockStore(connectionFactory);
		try {
			RedisCluster redis = cluster.server();
			List<String> values = List.of("alice", "a}b", "}x", "{", "{}", "x{y}z", "#{T(java.lang.Runtime)}", "ü 锁");
			Set<RedisServer> nodes = new HashSet<>();
			for (String value : values) {
				String key = "lock:UserService.register:" + value;
				String token = UUID.randomUUID().toString();
				assertThat(store.tryAcquire(key, token, Duration.ofSeconds(30)).isAcquired()).isTrue();
				String lockKey = "lock:{UserService.register:" + value + "}";
				RedisServer node = redis.nodeFor(lockKey);
				nodes.add(node);
				assertThat(node.command("GET", lockKey)).isEqualTo(token);
				assertThat(node.command("EXISTS", lockKey + ":fence")).as("no fence before a draw").isEqualTo("0");
				assertThat(store.fencingToken(key, token)).isPositive();
				assertThat(node.command("EXISTS", lockKey + ":fence")).isEqualTo("1");
				assertThat(redis.keySlot(lockKey + ":fence")).isEqualTo(redis.keySlot(lockKey));
				assertThat(redis.keySlot(lockKey + ":result")).isEqualTo(redis.keySlot(lockKey));
				assertThat(redis.keySlot(lockKey + ":released")).isEqualTo(redis.keySlot(lockKey));
				assertThat(store.release(key, token)).isTrue();
				assertThat(node.command("EXISTS", lockKey)).isEqualTo("0");
			}
			assertThat(nodes).as("nodes that hold the locks").hasSizeGreaterThan(1);
		}
		finally {
			store.destroy();
		}
	}

	@Test
	void locksOnEveryNodeAreExtendedInOneCall() {
		RedisLockStore store = new RedisLockStore(connectionFactory);
		try {
			RedisCluster redis = cluster.server();
			List<String> keys = new ArrayList<>();
			List<String> tokens = new ArrayList<>();
			Set<RedisServer> nodes = new HashSet<>();
			for (int i = 0; i < 30; i++) {
				String key = "lock:renewed-" + i + "-" + UUID.randomUUID();
				String token = UUID.randomUUID().toString();
				assertThat(store.tryAcquire(key, token, Duration.ofSeconds(2)).isAcquired()).isTrue();
				keys.add(key);
				tokens.add(i % 5 == 0 ? "not-the-owner" : token);
				nodes.add(redis.nodeFor("lock:{" + key.substring("lock:".length()) + "}"));
			}
			assertThat(nodes).as("nodes that hold the locks").hasSize(3);
			boolean[] extended = store.extendAll(keys, tokens, Duration.ofMinutes(5));
			for (int i = 0; i < keys.size(); i++) {
				String lockKey = "lock:{" + keys.get(i).substring("lock:".length()) + "}";
				long ttl = Long.parseLong(redis.command(lockKey, "PTTL", lockKey));
				if (i % 5 == 0) {
					assertThat(extended[i]).as("extend of %s by another owner", lockKey).isFalse();
					assertThat(ttl).isLessThanOrEqualTo(2000);
				}
				else {
					assertThat(extended[i]).as("extend of %s", lockKey).isTrue();
					assertThat(ttl).isGreaterThan(60_000);
				}
			}
		}
		finally {
			store.destroy();
		}
	}

	@Test
	void keysOfOneHashSlotAreTakenAtomicallyByOneScriptOnTheirNode() {
		RedisLockStore store = new RedisLockStore(connectionFactory);
		try {
			RedisCluster redis = cluster.server();
			String first = "lock:slot-" + UUID.randomUUID();
			int slot = redis.keySlot(lockKey(first));
			List<String> keys = new ArrayList<>(List.of(first));
			for (int i = 0; keys.size() < 3; i++) {
				String candidate = "lock:slot-" + i;
				if (ClusterSlotHashUtil.calculateSlot(lockKey(candidate)) == slot) {
					keys.add(candidate);
				}
			}
			keys.sort(null);
			RedisServer node = redis.nodeForSlot(slot);
			String holder = UUID.randomUUID().toString();
			assertThat(store.tryAcquire(keys.get(2), holder, Duration.ofSeconds(30)).isAcquired()).isTrue();
			MultiKeyAcquireReply conflict = store.tryAcquireAll(keys, UUID.randomUUID().toString(),
					Duration.ofSeconds(30));
			assertThat(conflict.heldIndex()).isEqualTo(2);
			assertThat(node.command("EXISTS", lockKey(keys.get(0)), lockKey(keys.get(1)))).as("the script took nothing")
				.isEqualTo("0");
			assertThat(store.release(keys.get(2), holder)).isTrue();
			String token = UUID.randomUUID().toString();
			MultiKeyAcquireReply acquired = store.tryAcquireAll(keys, token, Duration.ofSeconds(30));
			assertThat(acquired.isAcquired()).isTrue();
			for (String key : keys) {
				assertThat(node.command("GET", lockKey(key))).isEqualTo(token);
			}
			assertThat(store.releaseAll(keys, token)).containsExactly(true, true, true);
		}
		finally {
			store.destroy();
		}
	}

	@Test
	void keysOnSeveralNodesAreTakenInOrderAndRolledBackWhenALaterOneIsHeld() {
		RedisLockStore store = new RedisLockStore(connectionFactory);
		try {
			RedisCluster redis = cluster.server();
			List<String> keys = new ArrayList<>();
			Set<RedisServer> nodes = new HashSet<>();
			for (int i = 0; nodes.size() < 3; i++) {
				String key = "lock:spread-" + i + "-" + UUID.randomUUID();
				if (nodes.add(redis.nodeFor(lockKey(key)))) {
					keys.add(key);
				}
			}
			keys.sort(null);
			String holder = UUID.randomUUID().toString();
			assertThat(store.tryAcquire(keys.get(2), holder, Duration.ofSeconds(30)).isAcquired()).isTrue();
			String token = UUID.randomUUID().toString();
			MultiKeyAcquireReply conflict = store.tryAcquireAll(keys, token, Duration.ofSeconds(30));
			assertThat(conflict.isAcquired()).isFalse();
			assertThat(conflict.heldIndex()).isEqualTo(2);
			assertThat(conflict.holderRemainingTtl()).isPositive();
			for (String key : keys.subList(0, 2)) {
				assertThat(redis.command(lockKey(key), "EXISTS", lockKey(key))).as("%s was rolled back", key)
					.isEqualTo("0");
			}
			assertThat(store.release(keys.get(2), holder)).isTrue();
			MultiKeyAcquireReply acquired = store.tryAcquireAll(keys, token, Duration.ofSeconds(30));
			assertThat(acquired.isAcquired()).isTrue();
			for (String key : keys) {
				assertThat(store.fencingToken(key, token)).as("fencing token of %s, drawn on demand", key).isPositive();
				assertThat(redis.command(lockKey(key), "GET", lockKey(key))).isEqualTo(token);
			}
			assertThat(store.releaseAll(keys, token)).containsExactly(true, true, true);
			for (String key : keys) {
				assertThat(redis.command(lockKey(key), "EXISTS", lockKey(key))).isEqualTo("0");
			}
		}
		finally {
			store.destroy();
		}
	}

	@Test
	void locksOnEveryNodeAreListedInKeyOrderThroughLettuceAndJedis() throws Exception {
		JedisConnectionFactory jedisFactory = jedisConnectionFactory();
		RedisLockStore store = new RedisLockStore(connectionFactory);
		RedisLockStore jedisStore = new RedisLockStore(jedisFactory);
		// Other keys, so that each node is scanned over several pages
		Map<byte[], byte[]> others = new HashMap<>();
		String other = "other-" + UUID.randomUUID() + ":";
		for (int i = 0; i < 4 * RedisLockInspection.SCAN_COUNT; i++) {
			others.put((other + i).getBytes(StandardCharsets.UTF_8), new byte[] { 1 });
		}
		RedisAdvancedClusterAsyncCommands<byte[], byte[]> commands = nativeCommands();
		commands.mset(others).get(10, TimeUnit.SECONDS);
		try {
			String prefix = "lock:listed-" + UUID.randomUUID() + ":";
			List<String> keys = new ArrayList<>();
			Set<RedisServer> nodes = new HashSet<>();
			String token = UUID.randomUUID().toString();
			for (int i = 0; i < 40; i++) {
				String key = prefix + i;
				assertThat(store.tryAcquire(key, token, Duration.ofMinutes(1)).isAcquired()).isTrue();
				keys.add(key);
				nodes.add(cluster.server().nodeFor(lockKey(key)));
			}
			assertThat(nodes).as("nodes that hold the locks").hasSize(3);
			assertThat(store.putResult(keys.get(0), token, new byte[] { 1 }, Duration.ofMinutes(1))).isTrue();
			assertThat(store.fencingToken(keys.get(1), token)).isPositive();
			List<String> sorted = keys.stream().sorted().toList();

			for (RedisLockStore lister : List.of(store, jedisStore)) {
				cluster.server().nodes().forEach((node) -> node.command("CONFIG", "RESETSTAT"));
				assertThat(lister.holders(prefix, 100)).extracting(StoredLock::key).containsExactlyElementsOf(sorted);
				for (RedisServer node : cluster.server().nodes()) {
					assertThat(scanCalls(node)).as("SCAN pages on %s", node).isGreaterThan(1);
				}
				assertThat(lister.holders(prefix, 10)).extracting(StoredLock::key)
					.containsExactlyElementsOf(sorted.subList(0, 10));
			}
			assertThat(jedisStore.forceRelease(sorted.get(0))).isTrue();
			assertThat(store.forceRelease(sorted.get(1))).isTrue();
			assertThat(jedisStore.holders(prefix, 100)).extracting(StoredLock::key)
				.containsExactlyElementsOf(sorted.subList(2, sorted.size()));
			assertThat(store.releaseAll(sorted, token)).containsOnly(true, false).startsWith(false, false, true);
		}
		finally {
			commands.del(others.keySet().toArray(new byte[0][])).get(10, TimeUnit.SECONDS);
			store.destroy();
			jedisStore.destroy();
			jedisFactory.destroy();
		}
	}

	@SuppressWarnings("unchecked")
	private static RedisAdvancedClusterAsyncCommands<byte[], byte[]> nativeCommands() {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			return (RedisAdvancedClusterAsyncCommands<byte[], byte[]>) ((LettuceClusterConnection) connection)
				.getNativeConnection();
		}
	}

	private static long scanCalls(RedisServer node) {
		String stats = node.command("INFO", "commandstats");
		assertThat(stats).contains("cmdstat_scan:calls=");
		String calls = stats.substring(stats.indexOf("cmdstat_scan:calls=") + "cmdstat_scan:calls=".length());
		return Long.parseLong(calls.substring(0, calls.indexOf(',')));
	}

	@Test
	void aForceReleaseIsAnnouncedByShardedPubSubToAWaiterOfAnotherApplication() throws Exception {
		LettuceConnectionFactory otherApplication = connectionFactory(cluster.nodeAddresses());
		RedisLockStore holderStore = new RedisLockStore(connectionFactory);
		RedisLockStore waiterStore = new RedisLockStore(otherApplication);
		try {
			String key = "lock:forced-" + UUID.randomUUID();
			String channel = lockKey(key) + ":released";
			String holder = UUID.randomUUID().toString();
			assertThat(holderStore.tryAcquire(key, holder, Duration.ofSeconds(30)).isAcquired()).isTrue();
			CountDownLatch released = new CountDownLatch(1);
			try (ReleaseNotifyingLockStore.Subscription subscription = waiterStore.subscribe(key,
					released::countDown)) {
				awaitShardSubscribers(cluster.server().nodeFor(channel), channel, 1);
				assertThat(waiterStore.tryAcquire(key, "waiter", Duration.ofSeconds(30)).isAcquired()).isFalse();

				assertThat(waiterStore.forceRelease(key)).isTrue();

				assertThat(released.await(5, TimeUnit.SECONDS)).as("release notification received").isTrue();
			}
			assertThat(holderStore.release(key, holder)).isFalse();
		}
		finally {
			holderStore.destroy();
			waiterStore.destroy();
			otherApplication.destroy();
		}
	}

	private static JedisConnectionFactory jedisConnectionFactory() {
		JedisClientConfiguration client = JedisClientConfiguration.builder()
			.readTimeout(Duration.ofSeconds(2))
			.connectTimeout(Duration.ofSeconds(2))
			.build();
		JedisConnectionFactory factory = new JedisConnectionFactory(
				new RedisClusterConfiguration(cluster.nodeAddresses()), client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private static String lockKey(String key) {
		return "lock:{" + key.substring("lock:".length()) + "}";
	}

	@Test
	void releaseIsAnnouncedToAListenerOfAnotherApplicationByShardedPubSub() throws Exception {
		LettuceConnectionFactory otherApplication = connectionFactory(cluster.nodeAddresses());
		RedisLockStore holderStore = new RedisLockStore(connectionFactory);
		RedisLockStore waiterStore = new RedisLockStore(otherApplication);
		try {
			String key = "lock:announced-" + UUID.randomUUID();
			String channel = "lock:{" + key.substring("lock:".length()) + "}:released";
			RedisServer node = cluster.server().nodeFor(channel);
			String token = UUID.randomUUID().toString();
			assertThat(holderStore.tryAcquire(key, token, Duration.ofSeconds(30)).isAcquired()).isTrue();
			CountDownLatch released = new CountDownLatch(1);
			try (ReleaseNotifyingLockStore.Subscription subscription = waiterStore.subscribe(key,
					released::countDown)) {
				awaitShardSubscribers(node, channel, 1);
				// A waiter's attempt asks for the announcement
				assertThat(waiterStore.tryAcquire(key, "waiter", Duration.ofSeconds(30)).isAcquired()).isFalse();
				assertThat(holderStore.release(key, token)).isTrue();
				// Only a notification calls the listener: nothing polls here.
				assertThat(released.await(5, TimeUnit.SECONDS)).as("release notification received").isTrue();
			}
			awaitShardSubscribers(node, channel, 0);
		}
		finally {
			holderStore.destroy();
			waiterStore.destroy();
			otherApplication.destroy();
		}
	}

	@Test
	void waiterOfAnotherApplicationAcquiresWhenNotifiedLongBeforeItsNextPoll() throws Exception {
		LettuceConnectionFactory otherApplication = connectionFactory(cluster.nodeAddresses());
		RedisLockStore holderStore = new RedisLockStore(connectionFactory);
		RedisLockStore waiterStore = new RedisLockStore(otherApplication);
		LockTemplate holderLocks = new LockTemplate(holderStore);
		WatchedLockStore watchedWaiter = new WatchedLockStore(waiterStore);
		LockTemplate waiterLocks = new LockTemplate(watchedWaiter.store());
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			String key = "handoff-" + UUID.randomUUID();
			String channel = "lock:{" + key + "}:released";
			Lease holder = holderLocks.acquire(key, Duration.ofSeconds(30));
			Future<LockAttempt> waiter = executor.submit(() -> waiterLocks.tryAcquire(key,
					LockOptions.ttl(Duration.ofSeconds(30)).withWaitTime(Duration.ofSeconds(20))));
			awaitShardSubscribers(cluster.server().nodeFor(channel), channel, 1);
			// Polls 0.1, 0.2, 0.4 and 0.8 s apart: right after the fifth refusal the next
			// poll is a second away
			watchedWaiter.awaitRefusals(5, Duration.ofSeconds(10));
			assertThat(waiter).isNotDone();
			long releasedAt = System.nanoTime();
			assertThat(holder.release()).isTrue();
			LockAttempt attempt = waiter.get(10, TimeUnit.SECONDS);
			Duration handoff = Duration.ofNanos(System.nanoTime() - releasedAt);
			assertThat(attempt.isAcquired()).isTrue();
			assertThat(watchedWaiter.grantedBy(holderLocks.getKeyPrefix() + key))
				.as("acquired by the release listener's try, not by a poll of the waiter")
				.containsExactly("tryAcquireOnRelease");
			assertThat(handoff).as("liveness bound, not a speed claim: acquired well within the 20 s wait")
				.isLessThan(Duration.ofSeconds(5));
			attempt.lease().release();
		}
		finally {
			executor.shutdownNow();
			holderLocks.destroy();
			waiterLocks.destroy();
			holderStore.destroy();
			waiterStore.destroy();
			otherApplication.destroy();
		}
	}

	private static void awaitShardSubscribers(RedisServer node, String channel, int count) {
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.untilAsserted(() -> assertThat(shardSubscribers(node, channel)).as("sharded subscribers of %s", channel)
				.isEqualTo(count));
	}

	private static int shardSubscribers(RedisServer node, String channel) {
		String[] reply = node.command("PUBSUB", "SHARDNUMSUB", channel).split("\n");
		return Integer.parseInt(reply[reply.length - 1].strip());
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
