package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReplyWithResult;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.test.contract.LockStoreContractTests;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link LockStoreContractTests} for {@link RedisLockStore}, against a real Redis server.
 */
class RedisLockStoreContractTests extends LockStoreContractTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void createConnectionFactory() {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(5))
			.build();
		connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()),
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

	@Override
	protected LockStore createStore() {
		return new RedisLockStore(connectionFactory);
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

	@Override
	protected void restartServer() {
		redis.server().restart();
	}

	@Test
	void eachOperationIsOneRoundTripAndAConflictTwo() {
		String key = uniqueKey("round-trips");
		String owner = uniqueToken();
		// Load the scripts and open the connection first
		store().tryAcquire(key, owner, Duration.ofSeconds(10));
		store().tryAcquire(key, uniqueToken(), Duration.ofSeconds(10));
		store().extend(key, owner, Duration.ofSeconds(10));
		store().release(key, owner);
		redis.server().command("CONFIG", "RESETSTAT");
		store().tryAcquire(key, owner, Duration.ofSeconds(10));
		store().tryAcquire(key, uniqueToken(), Duration.ofSeconds(10));
		store().extend(key, owner, Duration.ofSeconds(10));
		store().release(key, owner);
		Map<String, Long> calls = commandCalls();
		calls.keySet().removeIf((command) -> command.startsWith("config"));
		// Acquire: SET NX PX. Conflict: SET NX PX, then the script that reads the
		// holder's PTTL (and runs SET NX PX again). Extend and release: one script each
		assertThat(calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L))
			.as("script calls for conflict, extend and release in %s", calls)
			.isEqualTo(3);
		assertThat(calls.get("set")).as("SET sent by acquire and conflict, and run by the conflict's script")
			.isEqualTo(3);
		// Redis counts the commands a script runs as well
		assertThat(calls.keySet()).as("commands sent")
			.isSubsetOf("evalsha", "eval", "set", "pttl", "get", "pexpire", "del", "incr", "time", "publish");
	}

	@Test
	void everyOperationWorksAfterTheScriptCacheIsFlushed() {
		RedisLockStore store = (RedisLockStore) store();
		String key = uniqueKey("flushed");
		String owner = uniqueToken();
		assertThat(store.tryAcquire(key, owner, Duration.ofSeconds(10)).isAcquired()).isTrue();
		redis.server().command("SCRIPT", "FLUSH");
		assertThat(store.extend(key, owner, Duration.ofSeconds(10))).isTrue();
		redis.server().command("SCRIPT", "FLUSH");
		assertThat(store.extendAll(List.of(key), List.of(owner), Duration.ofSeconds(10))).containsExactly(true);
		redis.server().command("SCRIPT", "FLUSH");
		assertThat(store.putResult(key, owner, new byte[] { 42 }, Duration.ofSeconds(10))).isTrue();
		assertThat(store.getResult(key)).containsExactly(42);
		redis.server().command("SCRIPT", "FLUSH");
		assertThat(store.release(key, owner)).isTrue();
		redis.server().command("SCRIPT", "FLUSH");
		redis.server().command("CONFIG", "RESETSTAT");
		assertThat(store.tryAcquire(key, owner, Duration.ofSeconds(10)).isAcquired()).isTrue();
		assertThat(store.tryAcquire(key, uniqueToken(), Duration.ofSeconds(10)).isAcquired()).isFalse();
		assertThat(store.tryAcquire(key, uniqueToken(), Duration.ofSeconds(10)).isAcquired()).isFalse();
		Map<String, Long> calls = commandCalls();
		assertThat(calls).as("two conflicts: EVALSHA, then EVAL once it failed, then EVALSHA of the loaded script")
			.containsEntry("evalsha", 2L)
			.containsEntry("eval", 1L);
		store.release(key, owner);
	}

	@Test
	void severalKeysAreTakenAndReleasedByOneScriptCallEach() {
		RedisLockStore store = (RedisLockStore) store();
		List<String> keys = List.of(uniqueKey("multi-a"), uniqueKey("multi-b"), uniqueKey("multi-c"))
			.stream()
			.sorted()
			.toList();
		String owner = uniqueToken();
		// Load the scripts and open the connection first
		assertThat(store.tryAcquireAll(keys, owner, Duration.ofSeconds(10)).isAcquired()).isTrue();
		assertThat(store.tryAcquireAll(keys, uniqueToken(), Duration.ofSeconds(10)).isAcquired()).isFalse();
		assertThat(store.releaseAll(keys, owner)).containsExactly(true, true, true);
		redis.server().command("CONFIG", "RESETSTAT");
		MultiKeyAcquireReply acquired = store.tryAcquireAll(keys, owner, Duration.ofSeconds(10));
		MultiKeyAcquireReply conflict = store.tryAcquireAll(keys, uniqueToken(), Duration.ofSeconds(10));
		boolean[] released = store.releaseAll(keys, owner);
		Map<String, Long> calls = commandCalls();
		calls.keySet().removeIf((command) -> command.startsWith("config"));
		assertThat(acquired.isAcquired()).isTrue();
		assertThat(acquired.fencingTokens()).as("drawn on demand").containsOnly(0L);
		assertThat(conflict.heldIndex()).isZero();
		assertThat(released).containsExactly(true, true, true);
		assertThat(calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L))
			.as("script calls for acquire, conflict and release of three keys in %s", calls)
			.isEqualTo(3);
		assertThat(calls).as("no release is announced: no one waited").doesNotContainKey("publish");
		for (String key : keys) {
			assertThat(redis.server().command("EXISTS", "{" + key + "}")).as("lock of %s", key).isEqualTo("0");
		}
	}

	@Test
	void aPlainCycleRunsFourCommandsAndLeavesNothingBehind() {
		RedisLockStore store = (RedisLockStore) store();
		String key = uniqueKey("plain");
		String owner = uniqueToken();
		// Load the scripts and open the connection first
		assertThat(store.tryAcquire(key, owner, Duration.ofSeconds(10)).isAcquired()).isTrue();
		assertThat(store.release(key, owner)).isTrue();
		redis.server().command("CONFIG", "RESETSTAT");
		assertThat(store.tryAcquire(key, owner, Duration.ofSeconds(10)).fencingToken()).isZero();
		assertThat(store.release(key, owner)).isTrue();
		Map<String, Long> calls = commandCalls();
		calls.keySet().removeIf((command) -> command.startsWith("config"));
		assertThat(calls).as("commands of one acquire and release")
			.containsExactlyInAnyOrderEntriesOf(Map.of("set", 1L, "evalsha", 1L, "get", 1L, "del", 1L));
		assertThat(redis.server().command("EXISTS", "{" + key + "}")).isEqualTo("0");
		assertThat(redis.server().command("EXISTS", "{" + key + "}:fence")).isEqualTo("0");
	}

	@Test
	void aHolderThatKeepsAResultMakesTwoRoundTrips() {
		RedisLockStore store = (RedisLockStore) store();
		String key = uniqueKey("result-trips");
		String owner = uniqueToken();
		// Load the scripts and open the connection first
		assertThat(store.tryAcquireReadingResult(key, owner, Duration.ofSeconds(10)).acquisition().isAcquired())
			.isTrue();
		assertThat(store.releaseKeepingResult(key, owner, new byte[] { 1 }, Duration.ofSeconds(10))).isTrue();
		redis.server().command("CONFIG", "RESETSTAT");
		AcquireReplyWithResult acquired = store.tryAcquireReadingResult(key, owner, Duration.ofSeconds(10));
		assertThat(acquired.keptResult()).containsExactly(1);
		assertThat(store.releaseKeepingResult(key, owner, new byte[] { 2 }, Duration.ofSeconds(10))).isTrue();
		Map<String, Long> calls = commandCalls();
		calls.keySet().removeIf((command) -> command.startsWith("config"));
		// Two scripts; inside them: GET of the result, SET NX PX; GET of the lock, SET of
		// the result, DEL
		assertThat(calls).as("commands of a holder that reads and keeps a result")
			.containsExactlyInAnyOrderEntriesOf(Map.of("evalsha", 2L, "get", 2L, "set", 2L, "del", 1L));
		assertThat(store.getResult(key)).containsExactly(2);
	}

	@Test
	void aFencingTokenIsDrawnOnlyByItsHolderAndKeptOneDay() {
		RedisLockStore store = (RedisLockStore) store();
		String key = uniqueKey("drawn");
		String owner = uniqueToken();
		assertThat(store.tryAcquire(key, owner, Duration.ofSeconds(10)).isAcquired()).isTrue();
		assertThat(store.fencingToken(key, uniqueToken())).as("drawn by another token").isZero();
		assertThat(redis.server().command("EXISTS", "{" + key + "}:fence")).isEqualTo("0");
		long first = store.fencingToken(key, owner);
		assertThat(first).isPositive();
		assertThat(Long.parseLong(redis.server().command("PTTL", "{" + key + "}:fence")))
			.isGreaterThan(Duration.ofHours(23).toMillis());
		assertThat(store.release(key, owner)).isTrue();
		assertThat(store.fencingToken(key, owner)).as("drawn after the release").isZero();
		String next = uniqueToken();
		assertThat(store.tryAcquireFenced(key, next, Duration.ofSeconds(10)).fencingToken()).isGreaterThan(first);
		assertThat(store.release(key, next)).isTrue();
	}

	@Test
	void onlyTheReleaseOfAWatchedLockIsAnnounced() throws Exception {
		RedisLockStore store = (RedisLockStore) store();
		String key = uniqueKey("watched");
		String owner = uniqueToken();
		assertThat(store.tryAcquire(key, owner, Duration.ofSeconds(10)).isAcquired()).isTrue();
		// A conflict without a listener in this JVM asks for nothing
		assertThat(store.tryAcquire(key, uniqueToken(), Duration.ofSeconds(10)).isAcquired()).isFalse();
		assertThat(redis.server().command("GET", "{" + key + "}")).isEqualTo(owner);
		CountDownLatch released = new CountDownLatch(1);
		try (var subscription = store.subscribe(key, released::countDown)) {
			assertThat(store.tryAcquire(key, uniqueToken(), Duration.ofSeconds(10)).isAcquired()).isFalse();
			assertThat(redis.server().command("GET", "{" + key + "}")).isEqualTo(owner + RedisLockScripts.WATCHED);
			long ttl = Long.parseLong(redis.server().command("PTTL", "{" + key + "}"));
			assertThat(ttl).as("the mark keeps the expiry").isPositive();
			// The owner still extends, stores results and releases with its token
			assertThat(store.extend(key, owner, Duration.ofSeconds(20))).isTrue();
			assertThat(store.putResult(key, owner, new byte[] { 1 }, Duration.ofSeconds(5))).isTrue();
			assertThat(store.tryAcquire(key, uniqueToken(), Duration.ofSeconds(10)).isAcquired()).isFalse();
			assertThat(redis.server().command("GET", "{" + key + "}")).as("marked once")
				.isEqualTo(owner + RedisLockScripts.WATCHED);
			assertThat(store.fencingToken(key, owner)).isPositive();
			await("the store's subscription").atMost(Duration.ofSeconds(5))
				.pollInSameThread()
				.pollInterval(Duration.ofMillis(10))
				.until(() -> store.getSubscriptionState() == RedisLockStore.SubscriptionState.CONNECTED);
			redis.server().command("CONFIG", "RESETSTAT");
			assertThat(store.release(key, owner)).isTrue();
			assertThat(commandCalls()).containsEntry("publish", 1L);
			assertThat(released.await(5, TimeUnit.SECONDS)).as("release notification received").isTrue();
		}
	}

	@Test
	void severalKeysWorkAfterTheScriptCacheIsFlushed() {
		RedisLockStore store = (RedisLockStore) store();
		List<String> keys = List.of(uniqueKey("flushed-a"), uniqueKey("flushed-b")).stream().sorted().toList();
		String owner = uniqueToken();
		redis.server().command("SCRIPT", "FLUSH");
		assertThat(store.tryAcquireAll(keys, owner, Duration.ofSeconds(10)).isAcquired()).isTrue();
		redis.server().command("SCRIPT", "FLUSH");
		assertThat(store.releaseAll(keys, owner)).containsExactly(true, true);
	}

	private static Map<String, Long> commandCalls() {
		Map<String, Long> calls = new TreeMap<>();
		String stats = redis.server().command("INFO", "commandstats");
		assertThat(stats).isNotNull();
		for (String line : stats.split("\r\n")) {
			if (line.startsWith("cmdstat_")) {
				String command = line.substring("cmdstat_".length(), line.indexOf(':'));
				String count = line.substring(line.indexOf("calls=") + "calls=".length(), line.indexOf(','));
				calls.put(command, Long.parseLong(count));
			}
		}
		return calls;
	}

}
