package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyAcquireResult;
import dev.lockstarter.test.contract.LockStoreContractTests;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

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
	protected void restartServer() {
		redis.server().restart();
	}

	@Test
	void eachOperationIsOneScriptCall() {
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
		assertThat(calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L))
			.as("script calls for acquire, conflict, extend and release in %s", calls)
			.isEqualTo(4);
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
		Map<String, Long> calls = commandCalls();
		assertThat(calls).as("EVALSHA, then EVAL once it failed, then EVALSHA of the loaded script")
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
		MultiKeyAcquireResult acquired = store.tryAcquireAll(keys, owner, Duration.ofSeconds(10));
		MultiKeyAcquireResult conflict = store.tryAcquireAll(keys, uniqueToken(), Duration.ofSeconds(10));
		boolean[] released = store.releaseAll(keys, owner);
		Map<String, Long> calls = commandCalls();
		calls.keySet().removeIf((command) -> command.startsWith("config"));
		assertThat(acquired.isAcquired()).isTrue();
		assertThat(acquired.fencingTokens()).doesNotContain(0L);
		assertThat(conflict.heldIndex()).isZero();
		assertThat(released).containsExactly(true, true, true);
		assertThat(calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L))
			.as("script calls for acquire, conflict and release of three keys in %s", calls)
			.isEqualTo(3);
		assertThat(calls).as("each release is announced").containsEntry("publish", 3L);
		for (String key : keys) {
			assertThat(redis.server().command("EXISTS", "{" + key + "}")).as("lock of %s", key).isEqualTo("0");
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
