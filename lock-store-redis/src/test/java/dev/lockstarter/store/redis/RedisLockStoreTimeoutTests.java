package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.lettuce.core.event.connection.ReconnectAttemptEvent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;

import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedisLockStore} operations bound by the store's timeout, against a real Redis
 * server that is paused ({@code SIGSTOP}: connections stay open, nothing answers) or
 * killed ({@code SIGKILL}), through a connection factory built as Spring Boot builds it
 * when {@code spring.data.redis.timeout} is not set: Lettuce's 60 second command timeout.
 * Each operation fails with a {@link LockStoreException} within the store's timeout, and
 * works again soon after the server is back, without a new store. Every test gets a fresh
 * server.
 */
class RedisLockStoreTimeoutTests {

	/** Scheduling margin on top of a timeout, for a busy machine. */
	private static final Duration MARGIN = Duration.ofMillis(900);

	private static final Duration SHORT_TIMEOUT = Duration.ofMillis(500);

	@RegisterExtension
	final RedisServerExtension redis = new RedisServerExtension();

	private final List<RedisLockStore> stores = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<ClientResources> clientResources = new ArrayList<>();

	private LettuceConnectionFactory connectionFactory;

	@BeforeEach
	void createConnectionFactory() {
		this.connectionFactory = connectionFactory(null);
	}

	@AfterEach
	void destroy() {
		this.redis.server().resume();
		this.stores.forEach(RedisLockStore::destroy);
		this.factories.forEach(LettuceConnectionFactory::destroy);
		this.clientResources.forEach(ClientResources::shutdown);
	}

	@Test
	void acquireFailsWithinTheDefaultTimeoutWhileRedisIsPaused() {
		RedisLockStore store = store(null);
		assertThat(store.getTimeout()).isEqualTo(RedisLockStore.DEFAULT_TIMEOUT).hasSeconds(2);
		String key = key();
		assertThat(store.tryAcquire(key, token(), Duration.ofSeconds(30)).isAcquired()).isTrue();
		this.redis.server().pause();
		Duration elapsed = assertFailsWithin(RedisLockStore.DEFAULT_TIMEOUT, key,
				(k) -> store.tryAcquire(k, token(), Duration.ofSeconds(30)), "acquire");
		assertThat(elapsed).as("time to fail").isGreaterThanOrEqualTo(Duration.ofMillis(1900));
		report("acquire, Redis paused, default timeout", elapsed);
	}

	@Test
	void everyOperationFailsWithinTheTimeoutWhileRedisIsPaused() {
		RedisLockStore store = store(SHORT_TIMEOUT);
		RedisLockStore acknowledged = acknowledgedStore();
		String held = key();
		String token = token();
		assertThat(store.tryAcquire(held, token, Duration.ofSeconds(30)).isAcquired()).isTrue();
		this.redis.server().pause();
		assertEveryOperationFails(store, acknowledged, held, token, "paused");
	}

	@Test
	void everyOperationFailsWithinTheTimeoutWhileRedisIsKilled() {
		RedisLockStore store = store(SHORT_TIMEOUT);
		RedisLockStore acknowledged = acknowledgedStore();
		String held = key();
		String token = token();
		assertThat(store.tryAcquire(held, token, Duration.ofSeconds(30)).isAcquired()).isTrue();
		RedisOutages.kill(this.redis.server());
		assertEveryOperationFails(store, acknowledged, held, token, "killed");
	}

	@Test
	void operationsSucceedAgainAtOnceWhenRedisResumes() throws InterruptedException {
		RedisLockStore store = store(SHORT_TIMEOUT);
		assertThat(store.tryAcquire(key(), token(), Duration.ofSeconds(30)).isAcquired()).isTrue();
		this.redis.server().pause();
		assertFailsWithin(SHORT_TIMEOUT, key(), (k) -> store.tryAcquire(k, token(), Duration.ofSeconds(30)), "acquire");
		this.redis.server().resume();
		Duration recovery = timeUntilAcquired(store);
		report("recovery after SIGCONT", recovery);
		assertThat(recovery).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void operationsSucceedAgainWithinSecondsWhenRedisRestartsAfterAShortOutage() throws InterruptedException {
		RedisLockStore store = store(SHORT_TIMEOUT);
		assertThat(store.tryAcquire(key(), token(), Duration.ofSeconds(30)).isAcquired()).isTrue();
		RedisOutages.kill(this.redis.server());
		assertFailsWithin(SHORT_TIMEOUT, key(), (k) -> store.tryAcquire(k, token(), Duration.ofSeconds(30)), "acquire");
		this.redis.server().restart();
		// Lettuce's own reconnect delay (doubling up to 30 s) is still short after 1 s
		Duration recovery = timeUntilAcquired(store);
		report("recovery after a restart following a ~1 s outage, Lettuce's default reconnect delay", recovery);
		assertThat(recovery).isLessThan(Duration.ofSeconds(4));
	}

	@Test
	void operationsSucceedAgainWithinAboutTwoSecondsAfterALongOutageWithTheReconnectDelayCapped()
			throws InterruptedException {
		// As lock.redis.lettuce.limit-reconnect-delay does for Spring Boot's client
		Duration cap = Duration.ofSeconds(2);
		ClientResources capped = ClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ZERO, cap, 2, TimeUnit.MILLISECONDS))
			.build();
		this.clientResources.add(capped);
		List<Duration> reconnectDelays = new CopyOnWriteArrayList<>();
		Disposable reconnects = capped.eventBus()
			.get()
			.ofType(ReconnectAttemptEvent.class)
			.subscribe((attempt) -> reconnectDelays.add(attempt.getDelay()));
		this.connectionFactory = connectionFactory(capped);
		RedisLockStore store = store(SHORT_TIMEOUT);
		assertThat(store.tryAcquire(key(), token(), Duration.ofSeconds(30)).isAcquired()).isTrue();
		RedisOutages.kill(this.redis.server());
		// Down until the reconnect delay, doubling from 1 ms, has reached its cap and
		// stayed there: an uncapped one would be past 4 s by then
		await("two reconnect attempts after the capped delay").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> reconnectDelays.stream().filter(cap::equals).count() >= 2);
		reconnects.dispose();
		assertFailsWithin(SHORT_TIMEOUT, key(), (k) -> store.tryAcquire(k, token(), Duration.ofSeconds(30)), "acquire");
		this.redis.server().restart();
		Duration recovery = timeUntilAcquired(store);
		report("recovery after a restart following an outage that took the reconnect delay to its 2 s cap", recovery);
		assertThat(recovery).isLessThan(Duration.ofMillis(3500));
	}

	@Test
	void firstOperationsFailWithinTheTimeoutWhenRedisIsPausedBeforeTheFirstConnection() throws Exception {
		// No connection yet: the store, created now, starts obtaining it, which waits for
		// Lettuce's handshake, bounded by the 60 s command timeout
		this.redis.server().pause();
		RedisLockStore store = unconnectedStore(SHORT_TIMEOUT);
		CompletableFuture<Duration> first = CompletableFuture.supplyAsync(() -> assertFailsWithin(SHORT_TIMEOUT, key(),
				(k) -> store.tryAcquire(k, token(), Duration.ofSeconds(30)), "acquire"));
		CompletableFuture<Duration> second = CompletableFuture.supplyAsync(() -> assertFailsWithin(SHORT_TIMEOUT, key(),
				(k) -> store.tryAcquire(k, token(), Duration.ofSeconds(30)), "acquire"));
		report("first acquire, no connection yet, Redis paused", first.get(10, TimeUnit.SECONDS));
		report("concurrent first acquire, no connection yet, Redis paused", second.get(10, TimeUnit.SECONDS));
		this.redis.server().resume();
		Duration recovery = timeUntilAcquired(store);
		report("first connection once Redis resumed", recovery);
		assertThat(recovery).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void firstOperationsFailAndThenSucceedWhenRedisIsDownBeforeTheFirstConnection() throws InterruptedException {
		this.redis.server().stop();
		RedisLockStore store = unconnectedStore(SHORT_TIMEOUT);
		LockStoreException failure = catchFailure(() -> store.tryAcquire(key(), token(), Duration.ofSeconds(30)));
		assertThat(failure).hasMessageContaining("acquire");
		this.redis.server().restart();
		Duration recovery = timeUntilAcquired(store);
		report("first connection once Redis started", recovery);
		assertThat(recovery).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void theStoreOpensItsConnectionWhenCreatedSoThatItsFirstCommandDoesNotPayForIt() throws InterruptedException {
		int before = connectedClients();
		RedisLockStore store = unconnectedStore(null);
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> connectedClients() != before);
		assertThat(connectedClients()).as("clients of Redis before the store's first command").isEqualTo(before + 1);
		assertThat(store.tryAcquire(key(), token(), Duration.ofSeconds(30)).isAcquired()).isTrue();
		assertThat(connectedClients()).as("clients of Redis after the store's first command").isEqualTo(before + 1);
	}

	/** The clients connected to Redis, the one that asks included. */
	private int connectedClients() {
		String info = this.redis.server().command("INFO", "clients");
		assertThat(info).contains("connected_clients:");
		String count = info.substring(info.indexOf("connected_clients:") + "connected_clients:".length());
		return Integer.parseInt(count.substring(0, count.indexOf('\r')).strip());
	}

	private void assertEveryOperationFails(RedisLockStore store, RedisLockStore acknowledged, String held, String token,
			String outage) {
		Map<String, Duration> times = new LinkedHashMap<>();
		times.put("acquire", assertFailsWithin(SHORT_TIMEOUT, key(),
				(k) -> store.tryAcquire(k, token(), Duration.ofSeconds(30)), "acquire"));
		times.put("release", assertFailsWithin(SHORT_TIMEOUT, held, (k) -> store.release(k, token), "release"));
		times.put("extend", assertFailsWithin(SHORT_TIMEOUT, held,
				(k) -> store.extend(k, token, Duration.ofSeconds(30)), "extend"));
		times.put("extendAll",
				assertFailsWithin(SHORT_TIMEOUT, held,
						(k) -> store.extendAll(List.of(k, key()), List.of(token, token()), Duration.ofSeconds(30)),
						"extend 2 locks"));
		times.put("putResult", assertFailsWithin(SHORT_TIMEOUT, held,
				(k) -> store.putResult(k, token, new byte[] { 1 }, Duration.ofSeconds(10)), "store the result of"));
		times.put("getResult", assertFailsWithin(SHORT_TIMEOUT, held, store::getResult, "read the result of"));
		times.put("tryAcquireReadingResult", assertFailsWithin(SHORT_TIMEOUT, key(),
				(k) -> store.tryAcquireReadingResult(k, token(), Duration.ofSeconds(30)), "acquire"));
		times.put("releaseKeepingResult", assertFailsWithin(SHORT_TIMEOUT, held,
				(k) -> store.releaseKeepingResult(k, token, new byte[] { 1 }, Duration.ofSeconds(10)), "release"));
		times.put("holders", assertFailsWithin(SHORT_TIMEOUT, "lock:timeout-*",
				(k) -> store.holders("lock:timeout-", 10), "list the holders of"));
		times.put("forceRelease",
				assertFailsWithin(SHORT_TIMEOUT, held, (k) -> store.forceRelease(k), "force-release"));
		// WAIT may take its own timeout on top
		times.put("acquire with WAIT", assertFailsWithin(SHORT_TIMEOUT.plus(Duration.ofMillis(200)), key(),
				(k) -> acknowledged.tryAcquire(k, token(), Duration.ofSeconds(30)), "acquire"));
		times.forEach((operation, elapsed) -> report(
				operation + ", Redis " + outage + ", timeout " + SHORT_TIMEOUT.toMillis() + " ms", elapsed));
	}

	private static Duration assertFailsWithin(Duration timeout, String key, Consumer<String> operation,
			String operationName) {
		long started = System.nanoTime();
		LockStoreException failure = catchFailure(() -> operation.accept(key));
		Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
		assertThat(elapsed).as("time to fail to %s", operationName).isLessThan(timeout.plus(MARGIN));
		assertThat(failure.getLockName()).isEqualTo(key);
		assertThat(failure).hasMessageContaining(operationName).hasMessageContaining("'" + key + "'");
		if (failure.getCause() instanceof TimeoutException) {
			assertThat(failure).hasMessageContaining("within " + timeout.toMillis() + " ms (lock.redis.timeout)");
		}
		return elapsed;
	}

	private static LockStoreException catchFailure(Runnable operation) {
		try {
			operation.run();
		}
		catch (LockStoreException ex) {
			return ex;
		}
		return fail("Expected a LockStoreException");
	}

	private Duration timeUntilAcquired(RedisLockStore store) {
		long started = System.nanoTime();
		await("the store acquiring after Redis came back").atMost(Duration.ofSeconds(20))
			.pollInSameThread()
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(20))
			.ignoreException(LockStoreException.class)
			.until(() -> store.tryAcquire(key(), token(), Duration.ofSeconds(30)).isAcquired());
		return Duration.ofNanos(System.nanoTime() - started);
	}

	/**
	 * Return a store whose connection is open: the first connection of a JVM may take
	 * longer than a short timeout.
	 */
	private RedisLockStore store(Duration timeout) {
		RedisLockStore store = unconnectedStore(null);
		assertThat(store.getResult(key())).isNull();
		if (timeout != null) {
			store.setTimeout(timeout);
		}
		return store;
	}

	private RedisLockStore unconnectedStore(Duration timeout) {
		RedisLockStore store = new RedisLockStore(this.connectionFactory);
		if (timeout != null) {
			store.setTimeout(timeout);
		}
		this.stores.add(store);
		return store;
	}

	private RedisLockStore acknowledgedStore() {
		RedisLockStore store = store(SHORT_TIMEOUT);
		store.setMinReplicaAcks(1);
		store.setReplicaAckTimeout(Duration.ofMillis(200));
		// No replica: an acquisition answers, then fails for want of acknowledgements
		assertThatExceptionOfType(LockStoreException.class)
			.isThrownBy(() -> store.tryAcquire(key(), token(), Duration.ofSeconds(30)))
			.withMessageContaining("only 0 of the 1 replicas");
		return store;
	}

	private LettuceConnectionFactory connectionFactory(ClientResources clientResources) {
		LettuceConnectionFactory factory = RedisOutages.bootDefaultConnectionFactory(this.redis.server(),
				clientResources);
		this.factories.add(factory);
		return factory;
	}

	private static void report(String what, Duration elapsed) {
		System.out.println("[timing] " + what + ": " + elapsed.toMillis() + " ms");
	}

	private static String key() {
		return "lock:timeout-" + UUID.randomUUID();
	}

	private static String token() {
		return UUID.randomUUID().toString();
	}

}
