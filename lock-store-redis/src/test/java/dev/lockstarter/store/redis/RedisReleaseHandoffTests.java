package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.ReleaseNotifyingLockStore.Subscription;
import dev.lockstarter.store.redis.RedisLockStore.SubscriptionState;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedisLockStore#tryAcquireOnRelease}: the acquisition a release listener sends
 * for its waiter, against a real Redis server, between two applications (a holder and a
 * waiter, each with a connection factory of its own, built as Spring Boot builds it by
 * default). Every test gets a fresh server.
 */
class RedisReleaseHandoffTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	/** Scheduling margin on top of a timeout, for a busy machine. */
	private static final Duration MARGIN = Duration.ofMillis(900);

	@RegisterExtension
	final RedisServerExtension redis = new RedisServerExtension();

	private final List<AutoCloseable> resources = new ArrayList<>();

	private RedisLockStore holder;

	private RedisLockStore waiter;

	@BeforeEach
	void createStores() {
		this.holder = store();
		this.waiter = store();
	}

	@AfterEach
	void destroy() throws Exception {
		this.redis.server().resume();
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@Test
	void aReleaseIsAnsweredOnTheSubscriptionsConnectionByTheThreadThatReadIt() throws Exception {
		HandedOff handedOff = releaseToTheListener();
		assertThat(handedOff.result().isAcquired()).isTrue();
		assertThat(handedOff.answering()).as("the thread that read the release and its answer")
			.isSameAs(handedOff.listening());
		assertThat(subscribedClients()).singleElement().asString().contains("cmd=evalsha");
		assertThat(this.holder.tryAcquire("k", "probe", TTL).isAcquired()).isFalse();
		assertThat(this.waiter.release("k", "waiter")).isTrue();
	}

	@Test
	void aLockHeldAgainIsAnsweredWithItsTimeToLiveAndItsReleaseIsAnnounced() throws Exception {
		CountDownLatch released = new CountDownLatch(1);
		subscribe("k", released::countDown);
		assertThat(this.holder.tryAcquire("k", "holder", TTL).isAcquired()).isTrue();
		AcquireReply held = this.waiter.tryAcquireOnRelease("k", "waiter", TTL).orElseThrow().get(5, TimeUnit.SECONDS);
		assertThat(held.isAcquired()).isFalse();
		assertThat(held.holderRemainingTtl()).isGreaterThan(Duration.ofSeconds(25)).isLessThanOrEqualTo(TTL);
		assertThat(this.holder.release("k", "holder")).isTrue();
		assertThat(released.await(5, TimeUnit.SECONDS)).as("release announced").isTrue();
	}

	@Test
	void withoutAnOpenConnectionTheWaiterIsLeftToTryItself() {
		assertThat(this.waiter.tryAcquireOnRelease("k", "waiter", TTL)).isEmpty();
		assertThat(this.waiter.tryAcquire("k", "waiter", TTL).isAcquired()).isTrue();
		// The shared connection is open now
		CompletableFuture<AcquireReply> attempt = this.waiter.tryAcquireOnRelease("other", "waiter", TTL).orElseThrow();
		assertThat(attempt).isNotNull();
		assertThat(attempt.join().isAcquired()).isTrue();
	}

	@Test
	void anAttemptRedisDoesNotAnswerFailsWithinTheTimeoutAndTheNextOneWorks() throws Exception {
		this.waiter.setTimeout(Duration.ofMillis(500));
		subscribe("k", () -> {
		});
		this.redis.server().pause();
		long started = System.nanoTime();
		CompletableFuture<AcquireReply> attempt = this.waiter.tryAcquireOnRelease("k", "waiter", TTL).orElseThrow();
		assertThat(attempt).isNotNull();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> attempt.get(10, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(LockStoreException.class)
			.withMessageContaining("did not answer within 500 ms (lock.redis.timeout)");
		Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
		assertThat(elapsed).as("the timeout, with a liveness bound (not a speed claim) on its end")
			.isGreaterThanOrEqualTo(Duration.ofMillis(450))
			.isLessThan(Duration.ofMillis(500).plus(MARGIN));
		this.redis.server().resume();
		AcquireReply result = this.waiter.tryAcquireOnRelease("k", "waiter", TTL)
			.orElseThrow()
			.get(5, TimeUnit.SECONDS);
		assertThat(result.isAcquired()).isTrue();
	}

	@Test
	void anAttemptWorksAfterTheScriptCacheIsFlushed() throws Exception {
		subscribe("k", () -> {
		});
		this.redis.server().command("SCRIPT", "FLUSH");
		AcquireReply result = this.waiter.tryAcquireOnRelease("k", "waiter", TTL)
			.orElseThrow()
			.get(5, TimeUnit.SECONDS);
		assertThat(result.isAcquired()).isTrue();
		assertThat(this.holder.tryAcquire("k", "probe", TTL).isAcquired()).isFalse();
	}

	@Test
	void aWaitingTemplateIsHandedTheLockByItsSubscription() throws Exception {
		LockTemplate holderLocks = template(this.holder);
		LockTemplate waiterLocks = template(this.waiter);
		AtomicReference<Thread> waiterThread = new AtomicReference<>();
		ExecutorService executor = Executors.newSingleThreadExecutor((task) -> {
			Thread thread = new Thread(task);
			waiterThread.set(thread);
			return thread;
		});
		this.resources.add(executor::shutdownNow);
		// One subscription serves every waiter of the application: open it first
		subscribe("other", () -> {
		});
		Lease lease = holderLocks.acquire("k", TTL);
		Future<LockAttempt> waiting = executor
			.submit(() -> waiterLocks.tryAcquire("k", LockOptions.ttl(TTL).withWaitTime(Duration.ofSeconds(10))));
		// The waiter's try once subscribed marks the holder's value as watched; then it
		// sleeps until its first poll, 80 ms or more later
		awaitWatched("{k}");
		PausedWaiters.awaitPaused(List.of(waiterThread.get()), Duration.ofSeconds(5));
		lease.release();
		LockAttempt attempt = waiting.get(5, TimeUnit.SECONDS);
		assertThat(attempt.isAcquired()).isTrue();
		assertThat(subscribedClients()).singleElement().asString().contains("cmd=evalsha");
		assertThat(holderLocks.tryAcquire("k", TTL).isAcquired()).isFalse();
		attempt.lease().release();
		assertThat(holderLocks.tryAcquire("k", TTL).isAcquired()).isTrue();
	}

	@Test
	void withoutRespThreeTheAttemptGoesThroughTheSharedConnection() throws Exception {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.redis.server().host(), this.redis.server().port()),
				LettuceClientConfiguration.builder()
					.clientOptions(ClientOptions.builder()
						.timeoutOptions(TimeoutOptions.enabled())
						.protocolVersion(ProtocolVersion.RESP2)
						.build())
					.build());
		factory.afterPropertiesSet();
		factory.start();
		this.resources.add(factory::destroy);
		this.waiter = new RedisLockStore(factory);
		this.resources.add(this.waiter::destroy);
		assertThat(releaseToTheListener().result().isAcquired()).isTrue();
		assertThat(subscribedClients()).singleElement().asString().contains("cmd=subscribe");
		assertThat(this.waiter.release("k", "waiter")).isTrue();
	}

	/**
	 * Let the holder take "k" and the waiter find it held (so that its release is
	 * announced), with a listener that sends the waiter's acquisition; release it, and
	 * return the answer with the threads that read the release and the answer.
	 */
	private HandedOff releaseToTheListener() throws Exception {
		assertThat(this.holder.tryAcquire("k", "holder", TTL).isAcquired()).isTrue();
		AtomicReference<Thread> listening = new AtomicReference<>();
		AtomicReference<Thread> answering = new AtomicReference<>();
		CompletableFuture<AcquireReply> attempt = new CompletableFuture<>();
		subscribe("k", () -> {
			listening.set(Thread.currentThread());
			CompletableFuture<AcquireReply> sent = this.waiter.tryAcquireOnRelease("k", "waiter", TTL).orElseThrow();
			assertThat(sent).isNotNull();
			sent.whenComplete((result, failure) -> {
				answering.set(Thread.currentThread());
				complete(attempt, result, failure);
			});
		});
		assertThat(this.waiter.tryAcquire("k", "waiter", TTL).isAcquired()).isFalse();
		assertThat(this.holder.release("k", "holder")).isTrue();
		return new HandedOff(attempt.get(5, TimeUnit.SECONDS), listening.get(), answering.get());
	}

	private RedisLockStore store() {
		LettuceConnectionFactory factory = RedisOutages.bootDefaultConnectionFactory(this.redis.server(), null);
		this.resources.add(factory::destroy);
		RedisLockStore store = new RedisLockStore(factory);
		this.resources.add(store::destroy);
		return store;
	}

	private LockTemplate template(RedisLockStore store) {
		LockTemplate template = new LockTemplate(store, "");
		this.resources.add(template::destroy);
		return template;
	}

	private void subscribe(String key, Runnable listener) {
		Subscription subscription = this.waiter.subscribe(key, listener);
		this.resources.add(subscription::close);
		awaitSubscribed();
	}

	private void awaitSubscribed() {
		await("subscribed").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.waiter.getSubscriptionState() == SubscriptionState.CONNECTED);
	}

	private void awaitWatched(String redisKey) {
		await(redisKey + " watched").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> String.valueOf(this.redis.server().command("GET", redisKey))
				.endsWith(RedisLockScripts.WATCHED));
	}

	/** The lines of {@code CLIENT LIST} of the connections that subscribe. */
	private List<String> subscribedClients() {
		String clients = this.redis.server().command("CLIENT", "LIST");
		assertThat(clients).isNotNull();
		return Arrays.stream(clients.split("\n")).filter((client) -> client.contains(" sub=1 ")).toList();
	}

	private static <T> void complete(CompletableFuture<T> future, T value, Throwable failure) {
		if (failure != null) {
			future.completeExceptionally(failure);
		}
		else {
			future.complete(value);
		}
	}

	private record HandedOff(AcquireReply result, Thread listening, Thread answering) {

	}

}
