package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.ReleaseNotifyingLockStore.Subscription;
import dev.lockstarter.store.StoredLock;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * The listing and force-release of {@link RedisLockStore} beyond the contract, against a
 * real Redis server: prefixes with glob characters and with the characters the key layout
 * escapes, a listing longer than a {@code SCAN} page (through Lettuce and Jedis), the
 * fencing tokens drawn, and a force-release that wakes a waiter and leaves results and
 * shared places alone.
 */
class RedisLockInspectionTests {

	private static final Duration TTL = Duration.ofMinutes(1);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static LettuceConnectionFactory connectionFactory;

	private static JedisConnectionFactory jedisConnectionFactory;

	private final List<RedisLockStore> stores = new ArrayList<>();

	private RedisLockStore store;

	@BeforeAll
	static void createConnectionFactory() {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(5))
			.build();
		connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()),
				client);
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		jedisConnectionFactory = new JedisConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()),
				JedisClientConfiguration.builder()
					.readTimeout(Duration.ofSeconds(5))
					.connectTimeout(Duration.ofSeconds(5))
					.build());
		jedisConnectionFactory.afterPropertiesSet();
		jedisConnectionFactory.start();
	}

	@AfterAll
	static void destroyConnectionFactory() {
		if (connectionFactory != null) {
			connectionFactory.destroy();
		}
		if (jedisConnectionFactory != null) {
			jedisConnectionFactory.destroy();
		}
	}

	@BeforeEach
	void createStore() {
		this.store = store(RedisLockStore.DEFAULT_KEY_PREFIX);
	}

	@AfterEach
	void destroyStores() {
		this.stores.forEach(RedisLockStore::destroy);
	}

	@Test
	void aPrefixWithGlobCharactersListsTheKeysThatStartWithItLiterally() {
		String prefix = "lock:" + unique() + ":a*b?[c]\\d^-:";
		List<String> held = List.of(prefix + "1", prefix + "2[x]", prefix + "\\*");
		held.forEach(this::acquire);
		// Keys that the prefix would match as a glob pattern
		String start = prefix.substring(0, prefix.indexOf(":a*") + 1);
		List<String> lookalikes = List.of(start + "aXXbYcd^-:1", start + "ab?[c]\\d^-:1", start + "a*b?c\\d^-:1",
				start + "a*b?[c]d^-:1");
		lookalikes.forEach(this::acquire);

		assertThat(this.store.holders(prefix, 10)).extracting(StoredLock::key)
			.containsExactlyElementsOf(held.stream().sorted().toList());
		assertThat(this.store.holders(start, 10)).extracting(StoredLock::key)
			.containsExactlyElementsOf(concat(held, lookalikes).stream().sorted().toList());
	}

	@Test
	void keysThatTheLayoutEscapesAndKeysWithoutThePrefixAreListed() {
		String unique = unique();
		// After the prefix, a leading '}' or '\' is escaped inside the braces
		List<String> escaped = List.of("lock:}" + unique + ":1", "lock:\\" + unique + ":1");
		// Without the prefix, a key is wrapped whole
		String other = "other*[" + unique + "]:";
		List<String> unprefixed = List.of(other + "1", other + "2");
		concat(escaped, unprefixed).forEach(this::acquire);

		assertThat(this.store.holders("lock:}" + unique, 10)).extracting(StoredLock::key)
			.containsExactly(escaped.get(0));
		assertThat(this.store.holders("lock:\\" + unique, 10)).extracting(StoredLock::key)
			.containsExactly(escaped.get(1));
		assertThat(this.store.holders(other, 10)).extracting(StoredLock::key).containsExactlyElementsOf(unprefixed);
		assertThat(this.store.holders("", Integer.MAX_VALUE)).extracting(StoredLock::key)
			.as("every lock, with or without the prefix")
			.containsAll(escaped)
			.containsAll(unprefixed);
	}

	@Test
	void aStorePrefixWithGlobCharactersListsItsOwnKeys() {
		RedisLockStore prefixed = store("app[1]*?\\:");
		String prefix = "app[1]*?\\:" + unique() + ":";
		List<String> held = List.of(prefix + "a", prefix + "b");
		held.forEach((key) -> assertThat(prefixed.tryAcquire(key, token(), TTL).isAcquired()).isTrue());
		assertThat(redis.server().command("EXISTS", "app[1]*?\\:{" + prefix.substring(10) + "a}")).isEqualTo("1");
		// A store of another prefix wraps the same store key whole: another lock
		String other = prefix + "c";
		assertThat(this.store.tryAcquire(other, token(), TTL).isAcquired()).isTrue();
		assertThat(redis.server().command("EXISTS", "{" + other + "}")).isEqualTo("1");

		assertThat(prefixed.holders(prefix, 10)).extracting(StoredLock::key).containsExactlyElementsOf(held);
		assertThat(this.store.holders(prefix, 10)).extracting(StoredLock::key).containsExactly(other);
		assertThat(prefixed.forceRelease(held.get(0))).isTrue();
		assertThat(prefixed.holders("app[1]*?\\:", Integer.MAX_VALUE)).extracting(StoredLock::key)
			.contains(held.get(1))
			.doesNotContain(held.get(0), other);
	}

	@Test
	void aListingLongerThanAScanPageScansEveryPageThenKeepsTheFirstKeys() {
		String prefix = "lock:" + unique() + ":";
		int count = RedisLockInspection.SCAN_COUNT + 200;
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			keys.add(prefix + String.format("%05d", (i * 7919) % count));
		}
		String token = token();
		for (int from = 0; from < count; from += 100) {
			assertThat(this.store.tryAcquireAll(keys.subList(from, from + 100), token, TTL).isAcquired()).isTrue();
		}
		// Records of the same keys that are not locks, and locks beside the prefix
		for (int i = 0; i < 50; i++) {
			assertThat(this.store.putResult(keys.get(i), token, new byte[] { 1 }, TTL)).isTrue();
			assertThat(this.store.tryAcquirePermit(prefix + "permit-" + i, token, TTL, 1).isAcquired()).isTrue();
			acquire("lock:" + prefix.substring(5, prefix.length() - 1) + "-beside:" + i);
		}
		List<String> sorted = keys.stream().sorted().toList();
		redis.server().command("CONFIG", "RESETSTAT");

		List<StoredLock> first = this.store.holders(prefix, 250);

		assertThat(first).extracting(StoredLock::key).containsExactlyElementsOf(sorted.subList(0, 250));
		assertThat(first).extracting(StoredLock::token).containsOnly(token);
		assertThat(scanCalls()).as("SCAN pages of one listing").isGreaterThan(1);
		assertThat(this.store.holders(prefix, count - 1)).extracting(StoredLock::key)
			.containsExactlyElementsOf(sorted.subList(0, count - 1));
		assertThat(this.store.holders(prefix, count + 1000)).hasSize(count);
		assertThat(this.store.holders(sorted.get(count - 1), 10)).extracting(StoredLock::key)
			.containsExactly(sorted.get(count - 1));
		// Through RedisTemplate, each page a script of its own
		RedisLockStore jedisStore = new RedisLockStore(jedisConnectionFactory);
		this.stores.add(jedisStore);
		redis.server().command("CONFIG", "RESETSTAT");
		assertThat(jedisStore.holders(prefix, 250)).extracting(StoredLock::key)
			.containsExactlyElementsOf(sorted.subList(0, 250));
		assertThat(scanCalls()).as("SCAN pages of one listing through Jedis").isGreaterThan(1);
	}

	@Test
	void noFencingTokenIsListedSinceTheCounterDoesNotTellWhoDrewIt() {
		String prefix = "lock:" + unique() + ":";
		String fenced = prefix + "fenced";
		String plain = prefix + "plain";
		assertThat(this.store.tryAcquireFenced(fenced, token(), TTL).fencingToken()).isPositive();
		String earlier = token();
		acquire(plain, earlier);
		assertThat(this.store.fencingToken(plain, earlier)).isPositive();
		assertThat(this.store.release(plain, earlier)).isTrue();
		acquire(plain);

		assertThat(this.store.holders(prefix, 10)).extracting(StoredLock::key, StoredLock::fencingToken)
			.as("the counter of the plain key holds the earlier holder's token, not its holder's")
			.containsExactly(tuple(fenced, 0L), tuple(plain, 0L));
	}

	@Test
	void aWatchedLockListsItsHoldersTokenAndItsForceReleaseWakesTheWaiter() throws InterruptedException {
		RedisLockStore waiterStore = store(RedisLockStore.DEFAULT_KEY_PREFIX);
		String key = "lock:" + unique();
		String holder = token();
		assertThat(this.store.tryAcquire(key, holder, TTL).isAcquired()).isTrue();
		CountDownLatch released = new CountDownLatch(1);
		try (Subscription subscription = waiterStore.subscribe(key, released::countDown)) {
			await().atMost(Duration.ofSeconds(10))
				.until(waiterStore::getSubscriptionState, RedisLockStore.SubscriptionState.CONNECTED::equals);
			// The waiter's refused attempt marks the holder's value as watched
			assertThat(waiterStore.tryAcquire(key, token(), TTL).isAcquired()).isFalse();
			assertThat(redis.server().command("GET", lockKey(key))).isEqualTo(holder + RedisLockScripts.WATCHED);
			assertThat(this.store.holders(key, 10)).extracting(StoredLock::token).containsExactly(holder);

			assertThat(this.store.forceRelease(key)).isTrue();

			assertThat(released.await(5, TimeUnit.SECONDS)).as("release notification received").isTrue();
		}
		assertThat(this.store.release(key, holder)).isFalse();
	}

	@Test
	void aForceReleaseLeavesTheResultAndTheSharedPlacesOfItsKey() {
		String key = "lock:" + unique();
		String token = token();
		assertThat(this.store.tryAcquire(key, token, TTL).isAcquired()).isTrue();
		assertThat(this.store.putResult(key, token, new byte[] { 7 }, TTL)).isTrue();
		assertThat(this.store.tryAcquireRead(key, token, TTL).isAcquired()).isTrue();
		long fence = this.store.fencingToken(key, token);

		assertThat(this.store.forceRelease(key)).isTrue();

		assertThat(this.store.getResult(key)).containsExactly(7);
		assertThat(this.store.sharedTimeToExpiry(key)).isPositive();
		assertThat(redis.server().command("GET", lockKey(key) + ":fence")).isEqualTo(Long.toString(fence));
		assertThat(this.store.forceRelease(key)).as("the shared places are no lock to force-release").isFalse();
		assertThat(this.store.releaseShared(key, token)).isTrue();
	}

	@Test
	void aForceReleaseLeavesAKeyOfAnotherTypeAlone() {
		String key = "lock:" + unique();
		redis.server().command("HSET", lockKey(key), "field", "value");
		assertThat(this.store.forceRelease(key)).isFalse();
		assertThat(this.store.holders(key, 10)).isEmpty();
		assertThat(redis.server().command("EXISTS", lockKey(key))).isEqualTo("1");
	}

	private RedisLockStore store(String keyPrefix) {
		RedisLockStore created = new RedisLockStore(connectionFactory, keyPrefix, RedisLockStore.DEFAULT_CHANNEL);
		this.stores.add(created);
		return created;
	}

	private void acquire(String key) {
		acquire(key, token());
	}

	private void acquire(String key, String token) {
		assertThat(this.store.tryAcquire(key, token, TTL).isAcquired()).as("acquired %s", key).isTrue();
	}

	private static long scanCalls() {
		String stats = redis.server().command("INFO", "commandstats");
		assertThat(stats).contains("cmdstat_scan:calls=");
		String calls = stats.substring(stats.indexOf("cmdstat_scan:calls=") + "cmdstat_scan:calls=".length());
		return Long.parseLong(calls.substring(0, calls.indexOf(',')));
	}

	private static String lockKey(String key) {
		return "lock:{" + key.substring("lock:".length()) + "}";
	}

	private static List<String> concat(List<String> first, List<String> second) {
		List<String> all = new ArrayList<>(first);
		all.addAll(second);
		return all;
	}

	private static String unique() {
		return "inspection-" + UUID.randomUUID();
	}

	private static String token() {
		return UUID.randomUUID().toString();
	}

}
