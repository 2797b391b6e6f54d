package dev.lockstarter.interceptor;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttemptWithResult;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockResults;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.core.ReactiveLockResults;
import dev.lockstarter.core.ReactiveLockTemplate;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link KeptResultReads}, over a {@link LockTemplate} on the in-memory store
 * whose reads of kept results are counted and held until a test lets them answer.
 */
class KeptResultReadsTests {

	private final CountDownLatch sent = new CountDownLatch(1);

	private final CountDownLatch answer = new CountDownLatch(1);

	private final AtomicInteger reads = new AtomicInteger();

	private final AtomicReference<RuntimeException> failure = new AtomicReference<>();

	private final LockTemplate locks = new LockTemplate(new InMemoryLockStore());

	private final LockResults results = new LockResults() {

		private final LockResults kept = KeptResultReadsTests.this.locks.results().orElseThrow();

		@Override
		public Optional<byte[]> findResult(String key) {
			KeptResultReadsTests.this.reads.incrementAndGet();
			KeptResultReadsTests.this.sent.countDown();
			try {
				assertThat(KeptResultReadsTests.this.answer.await(10, TimeUnit.SECONDS)).isTrue();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			RuntimeException failure = KeptResultReadsTests.this.failure.get();
			if (failure != null) {
				throw failure;
			}
			return this.kept.findResult(key);
		}

		@Override
		public LockAttemptWithResult tryAcquireReadingResult(String key, LockOptions options) {
			return this.kept.tryAcquireReadingResult(key, options);
		}

	};

	private final KeptResultReads keptResultReads = new KeptResultReads();

	/** The threads of the callers; the first, which reads, waits with a timeout. */
	private final List<Thread> callers = new CopyOnWriteArrayList<>();

	@Test
	void callersThatArrivedBeforeAReadWasSentTakeItsAnswer() throws Exception {
		keep("sum", "42");
		long arrivedAt = System.nanoTime();
		CompletableFuture<byte[]> first = read("sum", arrivedAt);
		assertThat(this.sent.await(10, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<byte[]> second = read("sum", arrivedAt);
		CompletableFuture<byte[]> third = read("sum", arrivedAt);
		// Both wait for the first one's answer rather than reading again
		awaitWaiting(2);
		assertThat(this.reads).hasValue(1);
		this.answer.countDown();
		assertThat(text(first)).isEqualTo("42");
		assertThat(text(second)).isEqualTo("42");
		assertThat(text(third)).isEqualTo("42");
		assertThat(this.reads).hasValue(1);
	}

	@Test
	void aCallerThatArrivedAfterAReadWasSentReadsAgain() throws Exception {
		keep("sum", "42");
		CompletableFuture<byte[]> first = read("sum", System.nanoTime());
		assertThat(this.sent.await(10, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<byte[]> later = read("sum", System.nanoTime());
		awaitReads(2);
		this.answer.countDown();
		assertThat(text(first)).isEqualTo("42");
		assertThat(text(later)).isEqualTo("42");
	}

	@Test
	void readsOfOtherKeysAreNotShared() throws Exception {
		keep("sum", "42");
		keep("product", "7");
		long arrivedAt = System.nanoTime();
		CompletableFuture<byte[]> sum = read("sum", arrivedAt);
		assertThat(this.sent.await(10, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<byte[]> product = read("product", arrivedAt);
		awaitReads(2);
		this.answer.countDown();
		assertThat(text(sum)).isEqualTo("42");
		assertThat(text(product)).isEqualTo("7");
	}

	@Test
	void aFailedReadFailsEveryCallerThatTookItsAnswerAndIsNotKept() throws Exception {
		keep("sum", "42");
		this.failure.set(new LockStoreException("sum", "Redis is down", new IllegalStateException()));
		long arrivedAt = System.nanoTime();
		CompletableFuture<byte[]> first = read("sum", arrivedAt);
		assertThat(this.sent.await(10, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<byte[]> second = read("sum", arrivedAt);
		awaitWaiting(1);
		this.answer.countDown();
		for (CompletableFuture<byte[]> caller : List.of(first, second)) {
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> caller.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockStoreException.class);
		}
		assertThat(this.reads).hasValue(1);
		// The failed read is gone: the next caller reads again, and gets the result
		this.failure.set(null);
		assertThat(
				new String(this.keptResultReads.read(this.results, "sum", System.nanoTime()), StandardCharsets.UTF_8))
			.isEqualTo("42");
		assertThat(this.reads).hasValue(2);
	}

	@Test
	void reactiveCallersThatArrivedBeforeAReadWasSentTakeItsAnswerEvenIfTheFirstCancels() throws Exception {
		CompletableFuture<Void> answerReactive = new CompletableFuture<>();
		AtomicInteger reactiveReads = new AtomicInteger();
		InMemoryLockStore store = new InMemoryLockStore() {

			@Override
			public Mono<byte[]> getResultReactive(String key) {
				return Mono.defer(() -> {
					reactiveReads.incrementAndGet();
					return Mono.fromFuture(answerReactive).then(super.getResultReactive(key));
				});
			}

		};
		LockTemplate template = new LockTemplate(store);
		ReactiveLockResults reactive = new ReactiveLockTemplate(template).results().orElseThrow();
		Lease lease = template.tryAcquire("sum", LockOptions.ttl(Duration.ofSeconds(10))).lease();
		assertThat(lease.putResult("42".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(10))).isTrue();
		lease.close();
		long arrivedAt = System.nanoTime();
		Disposable first = this.keptResultReads.readReactive(reactive, "sum", arrivedAt).subscribe();
		CompletableFuture<byte[]> second = this.keptResultReads.readReactive(reactive, "sum", arrivedAt).toFuture();
		// The first caller cancels: the read goes on for the second
		first.dispose();
		assertThat(reactiveReads).hasValue(1);
		answerReactive.complete(null);
		assertThat(new String(second.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8)).isEqualTo("42");
		assertThat(reactiveReads).hasValue(1);
		// Arrived after that read was sent: reads again
		assertThat(new String(
				this.keptResultReads.readReactive(reactive, "sum", System.nanoTime()).block(Duration.ofSeconds(10)),
				StandardCharsets.UTF_8))
			.isEqualTo("42");
		assertThat(reactiveReads).hasValue(2);
	}

	private void keep(String key, String value) {
		Lease lease = this.locks.tryAcquire(key, LockOptions.ttl(Duration.ofSeconds(10))).lease();
		try {
			assertThat(lease.putResult(value.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(10))).isTrue();
		}
		finally {
			lease.close();
		}
	}

	private void awaitReads(int count) {
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> this.reads.get() >= count);
		assertThat(this.reads).hasValue(count);
	}

	/** Wait until {@code count} callers wait for another caller's read (parked in it). */
	private void awaitWaiting(int count) {
		await(count + " caller(s) waiting for the read in flight").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> this.callers.stream().filter((caller) -> caller.getState() == Thread.State.WAITING).count(),
					(waiting) -> waiting >= count);
	}

	private CompletableFuture<byte[]> read(String key, long arrivedAt) {
		return CompletableFuture.supplyAsync(() -> this.keptResultReads.read(this.results, key, arrivedAt), (task) -> {
			Thread caller = new Thread(task);
			this.callers.add(caller);
			caller.start();
		});
	}

	private static String text(CompletableFuture<byte[]> read) throws Exception {
		return new String(read.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8);
	}

}
