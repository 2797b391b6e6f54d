package dev.lockstarter.store.redis;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.redis.RedisSentinel;
import dev.lockstarter.test.redis.RedisServer;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Interleavings of {@link RedisLockStore}'s operations on one key against a real Redis,
 * each driven to a chosen order. Redis runs one command or script at a time, so the
 * orders of two operations are the interleavings that matter, plus the one gap inside an
 * operation of one server: a conflicting acquisition's {@code SET NX PX} and the acquire
 * script that follows it, two round trips apart. And on Sentinel, what is not serialized
 * across a failover: an extension that only the old primary had, even with replica
 * acknowledgements. docs/stores/redis.md lists these tests under "Interleavings".
 */
class RedisInterleavingTests {

	private static final Duration SHORT_TTL = Duration.ofMillis(50);

	private static final Duration LONG_TTL = Duration.ofSeconds(30);

	private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(30);

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

	/**
	 * A conflict costs two round trips: the plain {@code SET NX PX}, refused, then the
	 * acquire script, which reads the holder's time to live. The holder releases between
	 * the two, on another connection; the script runs {@code SET NX PX} again and takes
	 * the lock.
	 */
	@Test
	void aLockReleasedBetweenTheRefusedSetAndTheAcquireScriptIsTakenByTheScript() {
		RedisLockStore holder = new RedisLockStore(connectionFactory);
		AtomicReference<@Nullable Runnable> beforeNextScript = new AtomicReference<>();
		RedisLockStore contender = new RedisLockStore(runningBeforeNextScript(connectionFactory, beforeNextScript));
		try {
			String key = key("between");
			assertThat(holder.tryAcquire(key, "holder", LONG_TTL).isAcquired()).isTrue();
			AtomicBoolean releasedInBetween = new AtomicBoolean();
			beforeNextScript.set(() -> releasedInBetween.set(holder.release(key, "holder")));
			AcquireReply reply = contender.tryAcquire(key, "contender", LONG_TTL);
			assertThat(releasedInBetween).as("the holder released its lock after the contender's refused SET").isTrue();
			assertThat(reply.isAcquired()).as("the contender's acquire script, after the release").isTrue();
			assertThat(redis.server().command("GET", redisKey(key))).isEqualTo("contender");
			assertThat(contender.release(key, "contender")).isTrue();
		}
		finally {
			holder.destroy();
			contender.destroy();
		}
	}

	@Test
	void aReleaseAfterTheTimeToLiveFreesNothingWhicheverSideOfTheTakeoverItLands() {
		RedisLockStore holder = new RedisLockStore(connectionFactory);
		RedisLockStore contender = new RedisLockStore(connectionFactory);
		try {
			// The release lands first: Redis expired the key, the release finds no value
			String first = key("release-first");
			assertThat(holder.tryAcquire(first, "stale", SHORT_TTL).isAcquired()).isTrue();
			awaitExpired(first);
			assertThat(holder.release(first, "stale")).as("a release after the TTL, before any takeover").isFalse();
			assertThat(contender.tryAcquire(first, "current", LONG_TTL).isAcquired()).as("the takeover after it")
				.isTrue();
			// The takeover lands first: the release's compare finds the new holder's
			// token
			String second = key("takeover-first");
			assertThat(holder.tryAcquire(second, "stale", SHORT_TTL).isAcquired()).isTrue();
			awaitExpired(second);
			assertThat(contender.tryAcquire(second, "current", LONG_TTL).isAcquired()).as("the takeover").isTrue();
			assertThat(holder.release(second, "stale")).as("a release after the TTL, after a takeover").isFalse();
			for (String key : List.of(first, second)) {
				assertThat(redis.server().command("GET", redisKey(key))).as("the holder of %s", key)
					.isEqualTo("current");
				assertThat(contender.release(key, "current")).isTrue();
			}
		}
		finally {
			holder.destroy();
			contender.destroy();
		}
	}

	@Test
	void exactlyOneOfSimultaneousContendersTakesOverAnExpiredLock() throws Exception {
		RedisLockStore store = new RedisLockStore(connectionFactory);
		int contenders = 8;
		ExecutorService executor = Executors.newFixedThreadPool(contenders);
		try {
			List<String> keys = new ArrayList<>();
			for (int round = 0; round < 10; round++) {
				String key = key("takeovers-" + round);
				assertThat(store.tryAcquire(key, "crashed", SHORT_TTL).isAcquired()).isTrue();
				keys.add(key);
			}
			for (String key : keys) {
				awaitExpired(key);
				CountDownLatch go = new CountDownLatch(1);
				List<Future<Boolean>> attempts = new ArrayList<>();
				for (int i = 0; i < contenders; i++) {
					String token = "contender-" + i;
					attempts.add(executor.submit(() -> {
						go.await();
						return store.tryAcquire(key, token, LONG_TTL).isAcquired();
					}));
				}
				go.countDown();
				int winners = 0;
				for (Future<Boolean> attempt : attempts) {
					winners += attempt.get(10, TimeUnit.SECONDS) ? 1 : 0;
				}
				assertThat(winners).as("takeovers of %s by %d simultaneous contenders", key, contenders).isOne();
				assertThat(store.release(key, "crashed")).as("the crashed holder's release").isFalse();
			}
		}
		finally {
			executor.shutdownNow();
			store.destroy();
		}
	}

	/**
	 * With {@code lock.redis.min-replica-acks}, an extension waits for the replicas as an
	 * acquisition does: one that the primary alone has fails, so the holder never counts
	 * on it; when the primary fails, the promoted replica frees the lock at the expiry of
	 * the acquisition, which is all the holder was told it had.
	 */
	@Test
	void anExtensionOnlyThePrimaryHadFailsSoTheHolderNeverCountsOnTimeTheReplicaLacks() {
		try (RedisSentinel sentinel = RedisSentinel.start()) {
			LettuceConnectionFactory factory = RedisSentinelLockStoreTests.connectionFactory(sentinel);
			RedisLockStore holder = new RedisLockStore(factory);
			holder.setMinReplicaAcks(1);
			RedisLockStore contender = new RedisLockStore(factory);
			try {
				String key = key("extended");
				Duration ttl = Duration.ofSeconds(5);
				RedisServer primary = sentinel.primary();
				RedisServer replica = sentinel.replica();
				assertThat(holder.tryAcquire(key, "holder", ttl).isAcquired()).as("an acknowledged acquisition")
					.isTrue();
				assertThat(replica.command("GET", redisKey(key))).isEqualTo("holder");
				// The replica stops and loses its link: the primary alone has what
				// follows
				replica.pause();
				primary.command("CLIENT", "KILL", "TYPE", "replica");
				assertThatExceptionOfType(LockStoreException.class).as("the extension no replica acknowledged")
					.isThrownBy(() -> holder.extend(key, "holder", Duration.ofMinutes(10)))
					.withMessageContaining("lock.redis.min-replica-acks");
				assertThat(Long.parseLong(primary.command("PTTL", redisKey(key))))
					.isGreaterThan(Duration.ofMinutes(9).toMillis());
				crash(primary);
				replica.resume();
				RedisServer promoted = sentinel.awaitFailover(primary, FAILOVER_TIMEOUT);
				assertThat(promoted).isSameAs(replica);
				assertThat(Long.parseLong(promoted.command("PTTL", redisKey(key))))
					.as("the lock's time to live on the promoted replica")
					.isLessThanOrEqualTo(ttl.toMillis());
				// Within the acquisition's TTL: the holder was never told of more
				assertThat(awaitAnswer(() -> {
					AcquireReply reply = contender.tryAcquire(key, "contender", LONG_TTL);
					return reply.isAcquired() ? reply : null;
				}, ttl.plus(FAILOVER_TIMEOUT)).isAcquired()).isTrue();
				assertThat(promoted.command("GET", redisKey(key))).isEqualTo("contender");
			}
			finally {
				holder.destroy();
				contender.destroy();
				factory.destroy();
			}
		}
	}

	private static String key(String name) {
		return "lock:interleaving-" + name + "-" + UUID.randomUUID();
	}

	private static String redisKey(String storeKey) {
		return "lock:{" + storeKey.substring("lock:".length()) + "}";
	}

	/** Wait until Redis no longer has the key: its time to live has passed. */
	private static void awaitExpired(String key) {
		await("the key's expiry").atMost(Duration.ofSeconds(5))
			.until(() -> "-2".equals(redis.server().command("PTTL", redisKey(key))));
	}

	/** Call until the store answers something else than {@code null} without failing. */
	private static <T> T awaitAnswer(Callable<@Nullable T> call, Duration timeout) {
		// LockStoreException: no primary yet
		T answer = await("an answer of the store").atMost(timeout)
			.pollInterval(Duration.ofMillis(10))
			.ignoreException(LockStoreException.class)
			.until(call, Objects::nonNull);
		return Objects.requireNonNull(answer);
	}

	/** End a server at once, without waiting for its replicas, as a crash would. */
	private static void crash(RedisServer server) {
		try {
			server.command("SHUTDOWN", "NOSAVE", "NOW");
		}
		catch (RuntimeException ex) {
			// The server closed the connection as it exited
		}
	}

	/**
	 * A connection factory whose connections run {@code beforeNextScript}, once, just
	 * before they send the next script ({@code EVALSHA} or {@code EVAL}). A store on it
	 * takes the path of a factory other than Lettuce's, through a {@code RedisTemplate}.
	 */
	private static RedisConnectionFactory runningBeforeNextScript(RedisConnectionFactory factory,
			AtomicReference<@Nullable Runnable> beforeNextScript) {
		return proxy(RedisConnectionFactory.class, factory, (method, target, args) -> {
			Object result = invoke(method, target, args);
			return (result instanceof RedisConnection connection)
					? proxy(RedisConnection.class, connection, (connectionMethod, connectionTarget, connectionArgs) -> {
						runBeforeScript(connectionMethod, beforeNextScript);
						Object answer = invoke(connectionMethod, connectionTarget, connectionArgs);
						return (answer instanceof RedisScriptingCommands scripting) ? proxy(
								RedisScriptingCommands.class, scripting, (scriptMethod, scriptTarget, scriptArgs) -> {
									runBeforeScript(scriptMethod, beforeNextScript);
									return invoke(scriptMethod, scriptTarget, scriptArgs);
								}) : answer;
					}) : result;
		});
	}

	private static void runBeforeScript(Method method, AtomicReference<@Nullable Runnable> beforeNextScript) {
		if (method.getName().startsWith("eval")) {
			Runnable action = beforeNextScript.getAndSet(null);
			if (action != null) {
				action.run();
			}
		}
	}

	private static <T> T proxy(Class<T> type, T target, Delegation delegation) {
		InvocationHandler handler = (proxy, method, args) -> delegation.call(method, target, args);
		return type.cast(Proxy.newProxyInstance(RedisInterleavingTests.class.getClassLoader(), new Class<?>[] { type },
				handler));
	}

	private static @Nullable Object invoke(Method method, Object target, Object @Nullable [] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	@FunctionalInterface
	private interface Delegation {

		@Nullable Object call(Method method, Object target, Object @Nullable [] args) throws Throwable;

	}

}
