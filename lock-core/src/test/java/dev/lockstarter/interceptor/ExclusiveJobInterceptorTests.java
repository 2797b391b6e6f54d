package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.interceptor.ExclusiveRequestInterceptorTests.SwitchableStore;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ExclusiveJobInterceptor}, applied through an
 * {@link ExclusiveJobAdvisor} on proxies that stand for two application instances: two
 * {@link LockTemplate}s on one in-memory store.
 */
class ExclusiveJobInterceptorTests {

	private static final long TIMEOUT_SECONDS = 10;

	private final SwitchableStore store = new SwitchableStore();

	private final LockTemplate firstLocks = new LockTemplate(this.store);

	private final LockTemplate secondLocks = new LockTemplate(this.store);

	private final List<String> ticks = new CopyOnWriteArrayList<>();

	private final Report work = new Report();

	private final Report first = proxy(this.work, this.firstLocks, "first");

	private final Report second = proxy(this.work, this.secondLocks, "second");

	private final ExecutorService executor = Executors.newFixedThreadPool(2);

	@AfterEach
	void shutDown() {
		this.executor.shutdownNow();
		this.firstLocks.destroy();
		this.secondLocks.destroy();
	}

	@Test
	void tickThatFindsTheJobRunningOnAnotherInstanceIsSkippedAndReturnsNormally() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		this.work.body = () -> {
			entered.countDown();
			await(finish);
		};
		CompletableFuture<Void> running = CompletableFuture.runAsync(this.first::send, this.executor);
		assertThat(entered.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
		this.second.send();
		assertThat(this.work.runs).hasValue(1);
		finish.countDown();
		running.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
		assertThat(this.work.runs).hasValue(1);
		assertThat(this.ticks).containsExactly("second:Report.send:skipped", "first:Report.send:ran");
	}

	@Test
	void lockIsKeptForHoldAtLeastAfterAFastRunSoThatALateTickOfAnotherInstanceIsSkipped() throws Exception {
		// fixedRate 1 s: the lock is kept 500 ms after it was taken
		this.first.send();
		this.second.send();
		assertThat(this.work.runs).hasValue(1);
		awaitFree("Report.send");
		this.second.send();
		assertThat(this.work.runs).hasValue(2);
		assertThat(this.ticks).containsExactly("first:Report.send:ran", "second:Report.send:skipped",
				"second:Report.send:ran");
	}

	@Test
	void leaseIsTheCurrentLeaseWhileTheJobRuns() {
		AtomicInteger checks = new AtomicInteger();
		this.work.body = () -> {
			assertThat(ExclusiveRequestContext.currentLease()).isNotNull()
				.satisfies((lease) -> assertThat(lease.key()).isEqualTo("Report.send"));
			checks.incrementAndGet();
		};
		this.first.send();
		assertThat(checks).hasValue(1);
		assertThat(ExclusiveRequestContext.currentLease()).isNull();
	}

	@Test
	void jobThatThrowsReleasesItsLockAndTheExceptionPropagates() {
		IllegalStateException failure = new IllegalStateException("report server down");
		this.work.body = () -> {
			throw failure;
		};
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(this.first::cleanUp).isSameAs(failure);
		this.work.body = () -> {
		};
		this.second.cleanUp();
		assertThat(this.work.runs).hasValue(2);
		assertThat(this.ticks).containsExactly("first:Report.cleanUp:failed", "second:Report.cleanUp:ran");
	}

	@Test
	void storeFailureSkipsTheTickWithoutAnException() {
		this.store.failing = true;
		assertThat(this.first.count()).isNull();
		assertThat(this.work.runs).hasValue(0);
		this.store.failing = false;
		assertThat(this.first.count()).isEqualTo(1);
		assertThat(this.ticks).containsExactly("first:Report.count:store-error", "first:Report.count:ran");
	}

	@Test
	void skippedTickOfAJobWithAResultReturnsNull() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		this.work.body = () -> {
			entered.countDown();
			await(finish);
		};
		CompletableFuture<Integer> running = CompletableFuture.supplyAsync(this.first::count, this.executor);
		assertThat(entered.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
		assertThat(this.second.count()).isNull();
		finish.countDown();
		assertThat(running.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo(1);
	}

	@Test
	void asynchronousJobHoldsItsLockUntilItsStageCompletes() throws Exception {
		CompletableFuture<String> stage = new CompletableFuture<>();
		this.work.stage = stage;
		CompletableFuture<String> running = this.first.asyncExport();
		assertThat(this.second.asyncExport()).isCompletedWithValue(null);
		assertThat(this.ticks).containsExactly("second:Report.asyncExport:skipped");
		stage.complete("exported");
		assertThat(running.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo("exported");
		this.work.stage = CompletableFuture.completedFuture("again");
		assertThat(this.second.asyncExport().get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo("again");
		assertThat(this.ticks).containsExactly("second:Report.asyncExport:skipped", "first:Report.asyncExport:ran",
				"second:Report.asyncExport:ran");
	}

	/** Wait until the kept lock of a job expires, for ten seconds at most. */
	private void awaitFree(String key) {
		Awaitility.await("lock '" + key + "' expired")
			.atMost(Duration.ofSeconds(TIMEOUT_SECONDS))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.secondLocks.timeToExpiry(key).isZero());
	}

	private Report proxy(Report target, LockTemplate locks, String instance) {
		ExclusiveJobAttributeSource attributeSource = new ExclusiveJobAttributeSource();
		ExclusiveJobInterceptor interceptor = new ExclusiveJobInterceptor(attributeSource, () -> locks,
				() -> LockOptions.ttl(Duration.ofSeconds(30)));
		interceptor.setListeners(
				() -> List.of((name, outcome) -> this.ticks.add(instance + ":" + name + ":" + outcome.tagValue())));
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new ExclusiveJobAdvisor(attributeSource, interceptor));
		return (Report) factory.getProxy();
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	static class Report {

		final AtomicInteger runs = new AtomicInteger();

		volatile Runnable body = () -> {
		};

		volatile CompletableFuture<String> stage = new CompletableFuture<>();

		@Scheduled(fixedRate = 1000)
		@ExclusiveJob
		public void send() {
			this.runs.incrementAndGet();
			this.body.run();
		}

		@Scheduled(fixedRate = 1000)
		@ExclusiveJob(holdAtLeast = "0s")
		public void cleanUp() {
			this.runs.incrementAndGet();
			this.body.run();
		}

		@Scheduled(fixedRate = 1000)
		@ExclusiveJob(holdAtLeast = "0s")
		public Integer count() {
			int runs = this.runs.incrementAndGet();
			this.body.run();
			return runs;
		}

		@Scheduled(fixedRate = 60_000)
		@ExclusiveJob(holdAtLeast = "0s")
		public CompletableFuture<String> asyncExport() {
			this.runs.incrementAndGet();
			return this.stage;
		}

	}

}
