package dev.lockstarter.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.ReleaseHandoffLockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link ReleaseHandoff}: the release listener that acquires for its waiter
 * (blocking or reactive), on an in-memory store whose listener attempts are answered by
 * the test (or at once), each with the store's own {@code tryAcquire}.
 */
class ReleaseHandoffTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	private final HandingOffStore store = new HandingOffStore();

	private final LockTemplate locks = new LockTemplate(this.store, "");

	private final ExecutorService executor = Executors.newSingleThreadExecutor();

	@AfterEach
	void shutDown() {
		this.executor.shutdownNow();
		this.locks.destroy();
	}

	@Test
	void aReleaseIsAnsweredByTheListenersAttemptAndTheWaiterTakesItsGrant() throws Exception {
		this.store.answerAtOnce = true;
		Future<LockAttempt> waiter = releaseToASleepingWaiter(Duration.ofSeconds(10));
		LockAttempt attempt = waiter.get(5, TimeUnit.SECONDS);
		assertThat(attempt.isAcquired()).isTrue();
		assertThat(this.store.listenerAttempts).hasValue(1);
		assertThat(this.store.tries).as("the waiter did not try itself after the release").hasValue(3);
		assertThat(this.store.tryAcquire("k", "probe", TTL).isAcquired()).isFalse();
		attempt.lease().release();
		assertThat(this.store.tryAcquire("k", "probe", TTL).isAcquired()).isTrue();
	}

	@Test
	void aReactiveWaiterTakesTheListenersGrantWithoutTryingItself() throws Exception {
		this.store.answerAtOnce = true;
		ReactiveLockTemplate reactiveLocks = new ReactiveLockTemplate(this.locks);
		Lease holder = this.locks.acquire("k", TTL);
		CompletableFuture<LockAttempt> waiter = reactiveLocks
			.tryAcquire("k", LockOptions.ttl(TTL).withWaitTime(Duration.ofSeconds(10)))
			.toFuture();
		// The holder's try and the waiter's first try, made once subscribed
		awaitTries(2);
		awaitAsleep();
		holder.release();
		LockAttempt attempt = waiter.get(5, TimeUnit.SECONDS);
		assertThat(attempt.isAcquired()).isTrue();
		assertThat(this.store.listenerAttempts).hasValue(1);
		assertThat(this.store.tries).as("the waiter did not try itself after the release").hasValue(2);
		assertThat(this.store.tryAcquire("k", "probe", TTL).isAcquired()).isFalse();
		reactiveLocks.release(attempt.lease()).block(Duration.ofSeconds(5));
		assertThat(this.store.tryAcquire("k", "probe", TTL).isAcquired()).isTrue();
	}

	@Test
	void aReactiveWaiterIsSignalledOnTheThreadThatAnsweredTheListenersAttempt() throws Exception {
		ReactiveLockTemplate reactiveLocks = new ReactiveLockTemplate(this.locks);
		Lease holder = this.locks.acquire("k", TTL);
		AtomicReference<@Nullable Thread> signalledOn = new AtomicReference<>();
		CompletableFuture<LockAttempt> waiter = reactiveLocks
			.tryAcquire("k", LockOptions.ttl(TTL).withWaitTime(Duration.ofSeconds(10)))
			.doOnNext((attempt) -> signalledOn.set(Thread.currentThread()))
			.toFuture();
		awaitTries(2);
		awaitAsleep();
		holder.release();
		PendingAttempt pending = this.store.pending.poll(5, TimeUnit.SECONDS);
		assertThat(pending).isNotNull();
		// As the client's I/O thread that reads the store's reply
		Thread replyReader = new Thread(pending::grant, "reply-reader");
		replyReader.start();
		replyReader.join(TimeUnit.SECONDS.toMillis(5));
		LockAttempt attempt = waiter.get(5, TimeUnit.SECONDS);
		assertThat(attempt.isAcquired()).isTrue();
		assertThat(signalledOn.get()).as("no hop to another thread between the reply and the waiter")
			.isSameAs(replyReader);
		assertThat(this.store.listenerAttempts).hasValue(1);
		assertThat(this.store.tries).as("the waiter did not try itself after the release").hasValue(2);
		reactiveLocks.release(attempt.lease()).block(Duration.ofSeconds(5));
	}

	@Test
	void aReactiveWaiterFailsWithTheListenersFailedAttemptAndTheLockItMayHaveTakenIsReleased() throws Exception {
		ReactiveLockTemplate reactiveLocks = new ReactiveLockTemplate(this.locks);
		Lease holder = this.locks.acquire("k", TTL);
		CompletableFuture<LockAttempt> waiter = reactiveLocks
			.tryAcquire("k", LockOptions.ttl(TTL).withWaitTime(Duration.ofSeconds(10)))
			.toFuture();
		awaitTries(2);
		awaitAsleep();
		holder.release();
		PendingAttempt pending = this.store.pending.poll(5, TimeUnit.SECONDS);
		assertThat(pending).isNotNull();
		pending.grantAndFail(new LockStoreException("k", "the store did not answer in time", new TimeoutException()));
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> waiter.get(5, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(LockStoreException.class)
			.withMessageContaining("did not answer in time");
		assertThat(this.store.tries).as("the waiter did not try itself after the release").hasValue(2);
		awaitFree("k");
	}

	@Test
	void aListenerOnlyWakesAWaiterThatIsTryingItself() {
		Semaphore wake = new Semaphore(0);
		ReleaseHandoff handoff = handoff(wake);
		assertThat(handoff.startWaiterTry()).isTrue();
		handoff.run();
		assertThat(this.store.pending).isEmpty();
		assertThat(wake.availablePermits()).isOne();
		handoff.endWaiterTry();
		handoff.run();
		assertThat(this.store.pending).hasSize(1);
		assertThat(handoff.startWaiterTry()).as("not while the listener's attempt runs").isFalse();
	}

	@Test
	void aGrantStopsFurtherAttemptsUntilTheWaiterTakesIt() {
		this.store.answerAtOnce = true;
		Semaphore wake = new Semaphore(0);
		ReleaseHandoff handoff = handoff(wake);
		handoff.run();
		handoff.run();
		assertThat(this.store.listenerAttempts).hasValue(1);
		assertThat(wake.availablePermits()).isEqualTo(2);
		assertThat(handoff.startWaiterTry()).isFalse();
		ReleaseHandoff.Answer answer = handoff.take();
		assertThat(answer).isNotNull();
		assertThat(answer.result()).isNotNull().satisfies((result) -> assertThat(result.isAcquired()).isTrue());
	}

	@Test
	void aLockFoundHeldAgainLetsTheNextReleaseTryAgain() {
		this.store.tryAcquire("k", "other", TTL);
		this.store.answerAtOnce = true;
		Semaphore wake = new Semaphore(0);
		ReleaseHandoff handoff = handoff(wake);
		handoff.run();
		ReleaseHandoff.Answer held = handoff.take();
		assertThat(held).isNotNull();
		assertThat(held.result()).isNotNull().satisfies((result) -> assertThat(result.isAcquired()).isFalse());
		this.store.release("k", "other");
		handoff.run();
		assertThat(this.store.listenerAttempts).hasValue(2);
		ReleaseHandoff.Answer granted = handoff.take();
		assertThat(granted).isNotNull();
		assertThat(granted.result()).isNotNull().satisfies((result) -> assertThat(result.isAcquired()).isTrue());
	}

	@Test
	void anAttemptTheStoreCannotSendLeavesTheTryToTheWaiter() {
		this.store.failToSend = true;
		Semaphore wake = new Semaphore(0);
		ReleaseHandoff handoff = handoff(wake);
		handoff.run();
		assertThat(wake.availablePermits()).isOne();
		assertThat(handoff.take()).isNull();
		assertThat(handoff.startWaiterTry()).isTrue();
	}

	@Test
	void aGrantThatComesAfterTheWaiterGaveUpIsReleased() throws Exception {
		Future<LockAttempt> waiter = releaseToASleepingWaiter(Duration.ofMillis(400));
		PendingAttempt pending = this.store.pending.poll(5, TimeUnit.SECONDS);
		assertThat(pending).isNotNull();
		LockAttempt attempt = waiter.get(5, TimeUnit.SECONDS);
		assertThat(attempt.isAcquired()).as("the answer had not come by the end of the wait").isFalse();
		// The store granted the lock after all
		pending.grant();
		awaitFree("k");
	}

	@Test
	void aFailedAttemptFailsTheWaitAndTheLockItMayHaveTakenIsReleased() throws Exception {
		Future<LockAttempt> waiter = releaseToASleepingWaiter(Duration.ofSeconds(10));
		PendingAttempt pending = this.store.pending.poll(5, TimeUnit.SECONDS);
		assertThat(pending).isNotNull();
		// As a timeout whose command the store applied
		pending.grantAndFail(new LockStoreException("k", "the store did not answer in time", new TimeoutException()));
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> waiter.get(5, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(LockStoreException.class)
			.withMessageContaining("did not answer in time");
		awaitFree("k");
	}

	/** A listener whose orphans no test here makes: it is driven by hand. */
	private ReleaseHandoff handoff(Semaphore wake) {
		return new ReleaseHandoff(this.store, "k", "waiter", TTL, wake::release, (sentAt) -> {
		});
	}

	/**
	 * Hold the key, let a waiter wait for it up to {@code waitTime} and fall asleep, then
	 * release it.
	 * @return the waiter's attempt
	 */
	private Future<LockAttempt> releaseToASleepingWaiter(Duration waitTime) throws InterruptedException {
		Lease holder = this.locks.acquire("k", TTL);
		Future<LockAttempt> waiter = this.executor
			.submit(() -> this.locks.tryAcquire("k", LockOptions.ttl(TTL).withWaitTime(waitTime)));
		// The holder's try, the waiter's first try and its try once subscribed
		awaitTries(3);
		awaitAsleep();
		holder.release();
		return waiter;
	}

	private void awaitTries(int tries) {
		await(tries + " tries").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> this.store.answeredTries.get() >= tries);
	}

	/**
	 * Wait until the waiter, its last try answered, sleeps until its next poll: its try
	 * ended, so that a release now is answered by the listener's attempt. A try made on
	 * this thread (a reactive waiter's, on subscription) ended before this is called.
	 */
	private void awaitAsleep() {
		Thread trier = this.store.lastTrier;
		assertThat(trier).isNotNull();
		if (trier == Thread.currentThread()) {
			return;
		}
		await("the waiter asleep").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(1))
			.until(() -> trier.getState() == Thread.State.TIMED_WAITING || trier.getState() == Thread.State.WAITING);
	}

	/** Wait until the lock is free, as it is once an orphan is released by token. */
	private void awaitFree(String key) {
		await(key + " released").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> this.store.tryAcquire(key, "probe", TTL).isAcquired());
	}

	/**
	 * The in-memory store, counting tries, whose listener attempts wait for the test
	 * unless {@link #answerAtOnce}.
	 */
	private static final class HandingOffStore extends InMemoryLockStore implements ReleaseHandoffLockStore {

		final AtomicInteger tries = new AtomicInteger();

		/** The tries whose answer was given to the caller. */
		final AtomicInteger answeredTries = new AtomicInteger();

		final AtomicInteger listenerAttempts = new AtomicInteger();

		/** The thread of the last try. */
		volatile @Nullable Thread lastTrier;

		final BlockingQueue<PendingAttempt> pending = new LinkedBlockingQueue<>();

		volatile boolean answerAtOnce;

		volatile boolean failToSend;

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			if (token.equals("probe") || token.equals("other")) {
				return super.tryAcquire(key, token, ttl);
			}
			this.tries.incrementAndGet();
			this.lastTrier = Thread.currentThread();
			try {
				return super.tryAcquire(key, token, ttl);
			}
			finally {
				this.answeredTries.incrementAndGet();
			}
		}

		@Override
		public Optional<CompletableFuture<AcquireReply>> tryAcquireOnRelease(String key, String token, Duration ttl) {
			this.listenerAttempts.incrementAndGet();
			if (this.failToSend) {
				throw new IllegalStateException("connection closed");
			}
			if (this.answerAtOnce) {
				return Optional.of(CompletableFuture.completedFuture(super.tryAcquire(key, token, ttl)));
			}
			PendingAttempt attempt = new PendingAttempt(this, key, token, ttl);
			this.pending.add(attempt);
			return Optional.of(attempt.answer);
		}

		AcquireReply acquire(String key, String token, Duration ttl) {
			return super.tryAcquire(key, token, ttl);
		}

	}

	private record PendingAttempt(HandingOffStore store, String key, String token, Duration ttl,
			CompletableFuture<AcquireReply> answer) {

		PendingAttempt(HandingOffStore store, String key, String token, Duration ttl) {
			this(store, key, token, ttl, new CompletableFuture<>());
		}

		void grant() {
			AcquireReply result = this.store.acquire(this.key, this.token, this.ttl);
			assertThat(result.isAcquired()).isTrue();
			this.answer.complete(result);
		}

		void grantAndFail(LockStoreException failure) {
			assertThat(this.store.acquire(this.key, this.token, this.ttl).isAcquired()).isTrue();
			this.answer.completeExceptionally(failure);
		}

	}

}
