package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnLeaseLost;
import dev.lockstarter.core.HeldLock;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LeaseLostException;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockListener;
import dev.lockstarter.core.LockLostEvent;
import dev.lockstarter.interceptor.ExclusiveRequestContext;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code onLeaseLost = CANCEL} against a real Redis that is paused ({@code SIGSTOP}) past
 * the lock's time-to-live while the first holder writes to a {@link FencedResource} with
 * its fencing token: the renewal cannot reach Redis until the lease expires, the lease is
 * found lost, and the first holder is stopped (its thread interrupted, or its
 * subscription cancelled) and its caller gets a {@link LeaseLostException}; once Redis
 * resumes, a second holder enters, and the resource never sees a write of the first
 * holder after the second one's. The controls with {@code REPORT} show the resource's
 * checker catching the first holder writing after the second entered.
 */
class LeaseLostCancellationIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static ConfigurableApplicationContext context;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "spring.data.redis.timeout=500ms",
					"lock.redis.timeout=500ms", "lock.ttl=1s")
			.run();
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	@BeforeEach
	void resetSignals() {
		signals().reset();
	}

	@AfterEach
	void resumeAndStopThreads() {
		redis.server().resume();
		signals().stop.set(true);
		this.executor.shutdownNow();
	}

	@Test
	void cancelInterruptsTheBlockingHolderBeforeTheSecondHolderEntersAndItNeverWritesAgain() throws Exception {
		Worker worker = worker();
		FencedResource resource = new FencedResource();
		AtomicBoolean interruptedAfterwards = new AtomicBoolean(true);
		Future<?> first = this.executor.submit(() -> {
			try {
				worker.blockingCancelled("blocking-cancel", resource);
			}
			finally {
				interruptedAfterwards.set(Thread.currentThread().isInterrupted());
			}
			return null;
		});
		await().atMost(DEADLINE).until(() -> resource.writesBy(Worker.FIRST) > 0);
		redis.server().pause();
		try {
			assertThat(signals().interrupted.await(DEADLINE.toSeconds(), TimeUnit.SECONDS))
				.as("the first holder's thread is interrupted while Redis is paused")
				.isTrue();
			assertThat(failureOf(first)).isInstanceOfSatisfying(LeaseLostException.class, (ex) -> {
				assertThat(ex.getKey()).isEqualTo("fenced:blocking-cancel");
				assertThat(ex.getLockName()).isEqualTo("fenced");
			});
		}
		finally {
			redis.server().resume();
		}
		assertThat(interruptedAfterwards).as("the interrupt is cleared before the thread leaves the call").isFalse();
		int firstWrites = resource.writesBy(Worker.FIRST);
		long secondToken = enterSecond(worker, "blocking-cancel", resource);
		assertThat(secondToken).isGreaterThan(resource.tokenOf(Worker.FIRST));
		assertThat(resource.writesBy(Worker.FIRST)).isEqualTo(firstWrites);
		assertThat(resource.staleWrites()).isEmpty();
	}

	@Test
	void reportLetsTheBlockingHolderWriteAfterTheSecondHolderEnteredAndTheResourceCatchesIt() throws Exception {
		Worker worker = worker();
		FencedResource resource = new FencedResource();
		Future<?> first = this.executor.submit(() -> {
			worker.blockingReported("blocking-report", resource);
			return null;
		});
		await().atMost(DEADLINE).until(() -> resource.writesBy(Worker.FIRST) > 0);
		redis.server().pause();
		try {
			await().atMost(DEADLINE).until(() -> signals().lost.contains("fenced:blocking-report"));
		}
		finally {
			redis.server().resume();
		}
		enterSecond(worker, "blocking-report", resource);
		await().atMost(DEADLINE).until(() -> !resource.staleWrites().isEmpty());
		assertThat(resource.staleWrites()).allSatisfy((write) -> assertThat(write.writer()).isEqualTo(Worker.FIRST));
		signals().stop.set(true);
		first.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
	}

	@Test
	void cancelCancelsTheReactiveHolderBeforeTheSecondHolderEntersAndItNeverWritesAgain() throws Exception {
		Worker worker = worker();
		FencedResource resource = new FencedResource();
		CompletableFuture<List<Long>> first = worker.reactiveCancelled("reactive-cancel", resource)
			.collectList()
			.toFuture();
		await().atMost(DEADLINE).until(() -> resource.writesBy(Worker.FIRST) > 0);
		redis.server().pause();
		try {
			assertThat(failureOf(first)).isInstanceOfSatisfying(LeaseLostException.class,
					(ex) -> assertThat(ex.getKey()).isEqualTo("fenced:reactive-cancel"));
		}
		finally {
			redis.server().resume();
		}
		int firstWrites = resource.writesBy(Worker.FIRST);
		long secondToken = enterSecond(worker, "reactive-cancel", resource);
		assertThat(secondToken).isGreaterThan(resource.tokenOf(Worker.FIRST));
		// Uncancelled, the first holder's interval writes every 25 ms
		await().during(Duration.ofMillis(500))
			.atMost(DEADLINE)
			.until(() -> resource.writesBy(Worker.FIRST) == firstWrites);
		assertThat(resource.staleWrites()).isEmpty();
	}

	@Test
	void reportLetsTheReactiveHolderWriteAfterTheSecondHolderEnteredAndTheResourceCatchesIt() throws Exception {
		Worker worker = worker();
		FencedResource resource = new FencedResource();
		CompletableFuture<List<Long>> first = worker.reactiveReported("reactive-report", resource)
			.collectList()
			.toFuture();
		await().atMost(DEADLINE).until(() -> resource.writesBy(Worker.FIRST) > 0);
		redis.server().pause();
		try {
			await().atMost(DEADLINE).until(() -> signals().lost.contains("fenced:reactive-report"));
		}
		finally {
			redis.server().resume();
		}
		enterSecond(worker, "reactive-report", resource);
		await().atMost(DEADLINE).until(() -> !resource.staleWrites().isEmpty());
		assertThat(resource.staleWrites()).allSatisfy((write) -> assertThat(write.writer()).isEqualTo(Worker.FIRST));
		first.cancel(true);
	}

	/** Enter as the second holder once Redis has let the first one's lock go. */
	private static long enterSecond(Worker worker, String key, FencedResource resource) {
		long[] token = new long[1];
		await().atMost(DEADLINE).ignoreException(LockConflictException.class).until(() -> {
			token[0] = worker.once(key, resource);
			return true;
		});
		return token[0];
	}

	private static Throwable failureOf(Future<?> future) throws Exception {
		try {
			future.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
		throw new AssertionError("The first holder's call ended without a failure");
	}

	private static Worker worker() {
		return context.getBean(Worker.class);
	}

	private static Signals signals() {
		return context.getBean(Signals.class);
	}

	/**
	 * A resource that remembers the newest fencing token it was written with and records
	 * a write with an older token as stale: a holder writing after a newer holder did.
	 */
	static final class FencedResource {

		private final List<Write> writes = new ArrayList<>();

		private final List<Write> stale = new ArrayList<>();

		private final Map<String, Long> tokens = new ConcurrentHashMap<>();

		private long newest;

		synchronized void write(String writer, long token) {
			Write write = new Write(writer, token);
			this.writes.add(write);
			this.tokens.put(writer, token);
			if (token < this.newest) {
				this.stale.add(write);
			}
			else {
				this.newest = token;
			}
		}

		synchronized int writesBy(String writer) {
			return (int) this.writes.stream().filter((write) -> write.writer().equals(writer)).count();
		}

		long tokenOf(String writer) {
			return this.tokens.get(writer);
		}

		synchronized List<Write> staleWrites() {
			return List.copyOf(this.stale);
		}

	}

	record Write(String writer, long token) {
	}

	/** What the tests observe of the worker, which is proxied, so its fields are not. */
	static class Signals {

		final AtomicBoolean stop = new AtomicBoolean();

		volatile CountDownLatch interrupted = new CountDownLatch(1);

		void reset() {
			this.stop.set(false);
			this.interrupted = new CountDownLatch(1);
			this.lost.clear();
		}

		final List<String> lost = new CopyOnWriteArrayList<>();

		final Map<String, HeldLock> held = new ConcurrentHashMap<>();

		@EventListener
		void onLost(LockLostEvent event) {
			this.lost.add(event.key());
		}

	}

	static class Worker {

		static final String FIRST = "first";

		static final String SECOND = "second";

		private final Signals signals;

		Worker(Signals signals) {
			this.signals = signals;
		}

		@ExclusiveRequest(name = "fenced", key = "#key", onLeaseLost = OnLeaseLost.CANCEL)
		public void blockingCancelled(String key, FencedResource resource) throws InterruptedException {
			writeUntilStopped(resource);
		}

		@ExclusiveRequest(name = "fenced", key = "#key", onLeaseLost = OnLeaseLost.REPORT)
		public void blockingReported(String key, FencedResource resource) throws InterruptedException {
			writeUntilStopped(resource);
		}

		@ExclusiveRequest(name = "fenced", key = "#key")
		public long once(String key, FencedResource resource) {
			long token = ExclusiveRequestContext.currentFencingToken().orElseThrow();
			resource.write(SECOND, token);
			return token;
		}

		@ExclusiveRequest(name = "fenced", key = "#key", onLeaseLost = OnLeaseLost.CANCEL)
		public Flux<Long> reactiveCancelled(String key, FencedResource resource) {
			return writeEvery25ms(key, resource);
		}

		@ExclusiveRequest(name = "fenced", key = "#key", onLeaseLost = OnLeaseLost.REPORT)
		public Flux<Long> reactiveReported(String key, FencedResource resource) {
			return writeEvery25ms(key, resource);
		}

		private void writeUntilStopped(FencedResource resource) throws InterruptedException {
			long token = ExclusiveRequestContext.currentFencingToken().orElseThrow();
			try {
				// Bounded: at most about 15 seconds
				for (int i = 0; i < 600 && !this.signals.stop.get(); i++) {
					resource.write(FIRST, token);
					Thread.sleep(25);
				}
			}
			catch (InterruptedException ex) {
				this.signals.interrupted.countDown();
				throw ex;
			}
		}

		/**
		 * A reactive method has no current lease on its thread: its lease is the one the
		 * listener saw acquired for its key.
		 */
		private Flux<Long> writeEvery25ms(String key, FencedResource resource) {
			return Mono.fromCallable(() -> ((Lease) this.signals.held.get("fenced:" + key)).fencingToken())
				.subscribeOn(Schedulers.boundedElastic())
				.flatMapMany((token) -> Flux.interval(Duration.ofMillis(25)).take(600).map((tick) -> {
					resource.write(FIRST, token);
					return token;
				}))
				.takeUntil((token) -> this.signals.stop.get());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

		@Bean
		Signals signals() {
			return new Signals();
		}

		@Bean
		Worker worker(Signals signals) {
			return new Worker(signals);
		}

		@Bean
		LockListener heldLocks(Signals signals) {
			return new LockListener() {
				@Override
				public void acquired(HeldLock lock) {
					signals.held.put(lock.key(), lock);
				}
			};
		}

	}

}
