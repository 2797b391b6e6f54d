package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.ReleaseNotifyingLockStore.Subscription;
import dev.lockstarter.store.redis.RedisLockStore.SubscriptionState;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waiters ({@code waitTime}) on a {@link RedisLockStore} while Redis refuses new
 * connections ({@code CONFIG SET maxclients} at the current count, once the store's
 * command connection is open) or is killed: the release subscription, which needs a
 * connection of its own, opens in the background, so a waiter answers at its wait time
 * (or fails within the store's timeout), never later, and waiters on other keys are not
 * queued behind it. Through a connection factory built as Spring Boot builds it by
 * default. Every test gets a fresh server.
 */
class RedisLockStoreWaiterOutageTests {

	private static final Duration WAIT_TIME = Duration.ofSeconds(2);

	/** Scheduling margin on top of a wait time or timeout, for a busy machine. */
	private static final Duration MARGIN = Duration.ofMillis(500);

	@RegisterExtension
	final RedisServerExtension redis = new RedisServerExtension();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final List<AutoCloseable> resources = new ArrayList<>();

	private LettuceConnectionFactory connectionFactory;

	private RedisLockStore holderStore;

	private LockTemplate holderLocks;

	private RedisLockStore waiterStore;

	private LockTemplate waiterLocks;

	@BeforeEach
	void createStores() {
		this.connectionFactory = RedisOutages.bootDefaultConnectionFactory(this.redis.server(), null);
		this.holderStore = new RedisLockStore(this.connectionFactory);
		this.holderLocks = new LockTemplate(this.holderStore);
		// The waiter: another application, with a connection factory of its own
		LettuceConnectionFactory waiterFactory = RedisOutages.bootDefaultConnectionFactory(this.redis.server(), null);
		this.waiterStore = new RedisLockStore(waiterFactory);
		this.waiterLocks = new LockTemplate(this.waiterStore);
		this.resources.add(waiterFactory::destroy);
	}

	@AfterEach
	void destroy() throws Exception {
		this.executor.shutdownNow();
		this.redis.server().resume();
		this.holderLocks.destroy();
		this.waiterLocks.destroy();
		this.holderStore.destroy();
		this.waiterStore.destroy();
		this.connectionFactory.destroy();
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
	}

	@Test
	void waitersAnswerAtTheirWaitTimeWhileNewConnectionsAreRefused() throws Exception {
		Lease first = this.holderLocks.acquire("first", Duration.ofSeconds(30));
		Lease second = this.holderLocks.acquire("second", Duration.ofSeconds(30));
		// The waiter's command connection is open; its subscription is not
		assertThat(this.waiterStore.getResult("lock:warm-up")).isNull();
		assertThat(this.waiterStore.getSubscriptionState()).isEqualTo(SubscriptionState.IDLE);
		try (MaxClients refused = MaxClients.refuseNewConnections(this.redis.server().host(),
				this.redis.server().port())) {
			Future<Waited> firstWaiter = this.executor.submit(() -> waitFor("first"));
			Future<Waited> secondWaiter = this.executor.submit(() -> waitFor("second"));
			Waited firstWaited = firstWaiter.get(10, TimeUnit.SECONDS);
			Waited secondWaited = secondWaiter.get(10, TimeUnit.SECONDS);
			report("waiter on 'first', new connections refused", firstWaited.elapsed());
			report("waiter on 'second', new connections refused", secondWaited.elapsed());
			for (Waited waited : List.of(firstWaited, secondWaited)) {
				assertThat(waited.failure()).as("store failure").isNull();
				assertThat(waited.acquired()).isFalse();
				assertThat(waited.elapsed()).isGreaterThanOrEqualTo(WAIT_TIME).isLessThan(WAIT_TIME.plus(MARGIN));
			}
			assertThat(this.waiterStore.getSubscriptionState()).isEqualTo(SubscriptionState.DISCONNECTED);
			// A new waiter does not wait for the subscription either
			Duration subscribed = RedisOutages.time(() -> this.waiterStore.subscribe("lock:third", () -> {
			}).close());
			// A subscribe that waited for the subscription would wait until connections
			// are accepted again, which they are not in this block, or at least for the
			// store's timeout of 2 s
			assertThat(subscribed)
				.as("liveness bound, not a speed claim: subscribed without waiting for the refused subscription")
				.isLessThan(Duration.ofMillis(1500));
		}
		// Once connections are accepted again, notifications come back
		RedisOutages.awaitSubscriptionState(this.waiterStore, SubscriptionState.CONNECTED);
		CountDownLatch released = new CountDownLatch(1);
		try (Subscription subscription = this.waiterStore.subscribe("lock:first", released::countDown)) {
			first.release();
			assertThat(released.await(5, TimeUnit.SECONDS)).as("release notification received").isTrue();
		}
		second.release();
	}

	@Test
	void waitersAnswerWithinTheTimeoutWhileRedisIsKilled() throws Exception {
		this.holderLocks.acquire("first", Duration.ofSeconds(30));
		this.holderLocks.acquire("second", Duration.ofSeconds(30));
		assertThat(this.waiterStore.getResult("lock:warm-up")).isNull();
		RedisOutages.kill(this.redis.server());
		Future<Waited> firstWaiter = this.executor.submit(() -> waitFor("first"));
		Future<Waited> secondWaiter = this.executor.submit(() -> waitFor("second"));
		Waited firstWaited = firstWaiter.get(10, TimeUnit.SECONDS);
		Waited secondWaited = secondWaiter.get(10, TimeUnit.SECONDS);
		report("waiter on 'first', Redis killed", firstWaited.elapsed());
		report("waiter on 'second', Redis killed", secondWaited.elapsed());
		for (Waited waited : List.of(firstWaited, secondWaited)) {
			// The first attempt already fails, at the store's timeout
			assertThat(waited.failure()).isInstanceOf(LockStoreException.class);
			assertThat(waited.elapsed()).isLessThan(RedisLockStore.DEFAULT_TIMEOUT.plus(MARGIN));
		}
	}

	@Test
	void waitersOnAHeldKeyAnswerAtTheirWaitTimeWhenRedisIsKilledWhileTheyWait() throws Exception {
		this.holderLocks.acquire("first", Duration.ofSeconds(30));
		this.holderLocks.acquire("second", Duration.ofSeconds(30));
		Future<Waited> firstWaiter = this.executor.submit(() -> waitFor("first"));
		Future<Waited> secondWaiter = this.executor.submit(() -> waitFor("second"));
		RedisOutages.awaitSubscriptionState(this.waiterStore, SubscriptionState.CONNECTED);
		RedisOutages.kill(this.redis.server());
		Waited firstWaited = firstWaiter.get(10, TimeUnit.SECONDS);
		Waited secondWaited = secondWaiter.get(10, TimeUnit.SECONDS);
		report("waiter on 'first', Redis killed while waiting", firstWaited.elapsed());
		report("waiter on 'second', Redis killed while waiting", secondWaited.elapsed());
		for (Waited waited : List.of(firstWaited, secondWaited)) {
			// A poll sent just before the wait time ends may take the store's timeout
			assertThat(waited.acquired()).isFalse();
			assertThat(waited.elapsed()).isLessThan(WAIT_TIME.plus(RedisLockStore.DEFAULT_TIMEOUT).plus(MARGIN));
		}
		assertThat(this.waiterStore.getSubscriptionState()).isEqualTo(SubscriptionState.DISCONNECTED);
	}

	@Test
	void subscriptionStateFollowsTheSubscriptionsConnection() throws Exception {
		assertThat(this.waiterStore.getSubscriptionState()).isEqualTo(SubscriptionState.IDLE);
		this.waiterStore.subscribe("lock:state", () -> {
		}).close();
		RedisOutages.awaitSubscriptionState(this.waiterStore, SubscriptionState.CONNECTED);
		RedisOutages.kill(this.redis.server());
		RedisOutages.awaitSubscriptionState(this.waiterStore, SubscriptionState.DISCONNECTED);
		this.redis.server().restart();
		RedisOutages.awaitSubscriptionState(this.waiterStore, SubscriptionState.CONNECTED);
		// Lettuce subscribed again by itself: a release reaches the waiter
		CountDownLatch released = new CountDownLatch(1);
		Lease lease = this.holderLocks.acquire("state", Duration.ofSeconds(30));
		try (Subscription subscription = this.waiterStore.subscribe("lock:state", released::countDown)) {
			// A waiter's attempt asks for the announcement
			assertThat(this.waiterStore.tryAcquire("lock:state", "waiter", Duration.ofSeconds(30)).isAcquired())
				.isFalse();
			lease.release();
			assertThat(released.await(5, TimeUnit.SECONDS)).as("release notification received").isTrue();
		}
	}

	@Test
	void subscriptionThatCannotConnectIsDisconnectedAndConnectsOnceRedisAcceptsConnections() throws Exception {
		assertThat(this.waiterStore.getResult("lock:warm-up")).isNull();
		try (MaxClients refused = MaxClients.refuseNewConnections(this.redis.server().host(),
				this.redis.server().port())) {
			this.waiterStore.subscribe("lock:refused", () -> {
			}).close();
			RedisOutages.awaitSubscriptionState(this.waiterStore, SubscriptionState.DISCONNECTED);
		}
		RedisOutages.awaitSubscriptionState(this.waiterStore, SubscriptionState.CONNECTED);
	}

	@Test
	void destroyStopsTheSubscriptionThread() throws Exception {
		Set<Thread> before = subscriberThreads();
		this.waiterStore.subscribe("lock:destroyed", () -> {
		}).close();
		RedisOutages.awaitSubscriptionState(this.waiterStore, SubscriptionState.CONNECTED);
		Set<Thread> started = subscriberThreads();
		started.removeAll(before);
		assertThat(started).hasSize(1);
		this.waiterStore.destroy();
		Thread thread = started.iterator().next();
		thread.join(5000);
		assertThat(thread.isAlive()).as("subscriber thread alive after destroy").isFalse();
		await("no subscriber of the release channel").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> this.redis.server().command("PUBSUB", "NUMSUB", "lock:released").endsWith("\n0"));
	}

	@Test
	void destroyStopsTheRetriesOfASubscriptionThatCannotConnect() throws Exception {
		assertThat(this.waiterStore.getResult("lock:warm-up")).isNull();
		Set<Thread> before = subscriberThreads();
		try (MaxClients refused = MaxClients.refuseNewConnections(this.redis.server().host(),
				this.redis.server().port())) {
			this.waiterStore.subscribe("lock:destroyed", () -> {
			}).close();
			RedisOutages.awaitSubscriptionState(this.waiterStore, SubscriptionState.DISCONNECTED);
			Set<Thread> started = subscriberThreads();
			started.removeAll(before);
			assertThat(started).hasSize(1);
			Duration destroyed = RedisOutages.time(this.waiterStore::destroy);
			assertThat(destroyed).isLessThan(Duration.ofSeconds(2));
			Thread thread = started.iterator().next();
			thread.join(5000);
			assertThat(thread.isAlive()).as("subscriber thread alive after destroy").isFalse();
		}
	}

	private Waited waitFor(String key) {
		long started = System.nanoTime();
		try {
			LockAttempt attempt = this.waiterLocks.tryAcquire(key,
					LockOptions.ttl(Duration.ofSeconds(30)).withWaitTime(WAIT_TIME));
			return new Waited(attempt.isAcquired(), Duration.ofNanos(System.nanoTime() - started), null);
		}
		catch (LockStoreException ex) {
			return new Waited(false, Duration.ofNanos(System.nanoTime() - started), ex);
		}
	}

	private static Set<Thread> subscriberThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().startsWith("lock-redis-release-subscriber"))
			.collect(Collectors.toSet());
	}

	private static void report(String what, Duration elapsed) {
		System.out.println("[timing] " + what + ": " + elapsed.toMillis() + " ms");
	}

	/**
	 * What one waiter got, and when.
	 */
	private record Waited(boolean acquired, Duration elapsed, LockStoreException failure) {
	}

	/**
	 * Redis refusing new connections: {@code maxclients} at the number of clients
	 * connected, counting the connection kept open here to set it back.
	 */
	private static final class MaxClients implements AutoCloseable {

		private final RedisClient client;

		private final StatefulRedisConnection<String, String> admin;

		private final String previous;

		private MaxClients(RedisClient client, StatefulRedisConnection<String, String> admin, String previous) {
			this.client = client;
			this.admin = admin;
			this.previous = previous;
		}

		static MaxClients refuseNewConnections(String host, int port) {
			RedisClient client = RedisClient.create(RedisURI.create(host, port));
			StatefulRedisConnection<String, String> admin = client.connect();
			String previous = admin.sync().configGet("maxclients").get("maxclients");
			String clients = admin.sync().info("clients");
			String connected = clients.substring(clients.indexOf("connected_clients:") + "connected_clients:".length());
			admin.sync().configSet("maxclients", connected.substring(0, connected.indexOf('\r')).strip());
			return new MaxClients(client, admin, previous);
		}

		@Override
		public void close() {
			this.admin.sync().configSet("maxclients", this.previous);
			this.admin.close();
			this.client.shutdown();
		}

	}

}
