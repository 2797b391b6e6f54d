package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.InvalidLockKeyException;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ExclusiveRequestInterceptor}, applied through an
 * {@link ExclusiveRequestAdvisor} on a proxy, with a {@link LockTemplate} on the
 * in-memory store.
 */
class ExclusiveRequestInterceptorTests {

	private static final long TIMEOUT_SECONDS = 10;

	private final InterceptedLocks intercepted = new InterceptedLocks();

	private final SwitchableStore store = this.intercepted.store;

	private final LockTemplate locks = this.intercepted.locks;

	private final ExclusiveRequestInterceptor interceptor = this.intercepted.interceptor;

	private final Orders orders = this.intercepted.proxy(new Orders());

	private final ExecutorService executor = Executors.newFixedThreadPool(2);

	@AfterEach
	void shutDown() {
		this.executor.shutdownNow();
		this.locks.destroy();
	}

	@Test
	void secondCallWithTheSameKeyIsRejectedWhileTheFirstHoldsTheLock() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		CompletableFuture<String> first = CompletableFuture
			.supplyAsync(() -> this.orders.place("order-1", () -> awaitBoth(entered, finish)), this.executor);
		assertThat(entered.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
		AtomicInteger secondRuns = new AtomicInteger();
		assertThatExceptionOfType(LockConflictException.class)
			.isThrownBy(() -> this.orders.place("order-1", secondRuns::incrementAndGet))
			.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("orders"))
			.satisfies((ex) -> assertThat(ex.getRetryAfter()).isPositive());
		assertThat(secondRuns).hasValue(0);
		finish.countDown();
		assertThat(first.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo("placed order-1");
	}

	@Test
	void callsWithDifferentKeysRunConcurrently() throws Exception {
		CountDownLatch bothInside = new CountDownLatch(2);
		Runnable meetTheOther = () -> {
			bothInside.countDown();
			await(bothInside);
		};
		CompletableFuture<String> first = CompletableFuture
			.supplyAsync(() -> this.orders.place("order-1", meetTheOther), this.executor);
		CompletableFuture<String> second = CompletableFuture
			.supplyAsync(() -> this.orders.place("order-2", meetTheOther), this.executor);
		// Each call returns only once the other is inside its method as well
		assertThat(first.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo("placed order-1");
		assertThat(second.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo("placed order-2");
	}

	@Test
	void lockIsHeldWhileTheMethodRunsAndReleasedWhenItReturns() {
		AtomicInteger checks = new AtomicInteger();
		String result = this.orders.place("order-1", () -> {
			assertThat(isHeld("orders:order-1")).isTrue();
			assertThat(ExclusiveRequestContext.currentLease()).isNotNull();
			checks.incrementAndGet();
		});
		assertThat(result).isEqualTo("placed order-1");
		assertThat(checks).hasValue(1);
		assertThat(isHeld("orders:order-1")).isFalse();
		assertThat(ExclusiveRequestContext.currentLease()).isNull();
	}

	@Test
	void anAbsentObservationConventionIsLookedUpOnce() {
		// A lookup that answers null must not be repeated (under a lock) on every call
		AtomicInteger lookups = new AtomicInteger();
		this.interceptor.setObservationConvention(() -> {
			lookups.incrementAndGet();
			return null;
		});
		this.orders.place("order-1", () -> {
		});
		this.orders.place("order-2", () -> {
		});
		assertThat(lookups).hasValue(1);
	}

	@Test
	void lockIsReleasedWhenTheMethodThrowsAndTheExceptionPropagatesUnchanged() {
		IllegalStateException failure = new IllegalStateException("payment declined");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> this.orders.place("order-1", () -> {
			throw failure;
		})).isSameAs(failure);
		assertThat(isHeld("orders:order-1")).isFalse();
		assertThat(this.orders.place("order-1", () -> {
		})).isEqualTo("placed order-1");
	}

	@Test
	void nullKeyValueIsRejectedAndTheMethodDoesNotRun() {
		AtomicInteger runs = new AtomicInteger();
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> this.orders.place(null, runs::incrementAndGet))
			.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("orders"));
		assertThat(runs).hasValue(0);
		assertThat(this.store.acquisitions).hasValue(0);
	}

	@Test
	void blankKeyValueIsRejectedAndTheMethodDoesNotRun() {
		AtomicInteger runs = new AtomicInteger();
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> this.orders.place("  ", runs::incrementAndGet));
		assertThat(runs).hasValue(0);
		assertThat(this.store.acquisitions).hasValue(0);
	}

	@Test
	void unannotatedMethodPassesThroughWithoutTouchingTheStore() {
		this.store.failing = true;
		assertThat(this.orders.describe("order-1")).isEqualTo("order order-1");
		assertThat(this.store.acquisitions).hasValue(0);
	}

	@Test
	void storeFailureFailsClosedByDefault() {
		assertThat(this.interceptor.getStoreFailurePolicy()).isEqualTo(StoreFailurePolicy.FAIL_CLOSED);
		this.store.failing = true;
		AtomicInteger runs = new AtomicInteger();
		assertThatExceptionOfType(LockStoreException.class)
			.isThrownBy(() -> this.orders.place("order-1", runs::incrementAndGet))
			.withMessageContaining("store down");
		assertThat(runs).hasValue(0);
	}

	@Test
	void storeFailureRunsTheMethodWithoutALockWhenFailOpen() {
		this.interceptor.setStoreFailurePolicy(StoreFailurePolicy.FAIL_OPEN);
		this.store.failing = true;
		AtomicInteger runs = new AtomicInteger();
		String result = this.orders.place("order-1", () -> {
			assertThat(ExclusiveRequestContext.currentLease()).isNull();
			runs.incrementAndGet();
		});
		assertThat(result).isEqualTo("placed order-1");
		assertThat(runs).hasValue(1);
		assertThat(this.store.acquisitions).hasValue(1);
	}

	@Test
	void waitingCallAcquiresOnceTheHolderReleases() throws Exception {
		CountDownLatch holderEntered = new CountDownLatch(1);
		CountDownLatch holderFinish = new CountDownLatch(1);
		AtomicInteger holderInside = new AtomicInteger();
		CompletableFuture<String> holder = CompletableFuture
			.supplyAsync(() -> this.orders.placeWaiting("order-1", () -> {
				holderInside.incrementAndGet();
				awaitBoth(holderEntered, holderFinish);
				holderInside.decrementAndGet();
			}), this.executor);
		assertThat(holderEntered.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
		this.store.rejected = new CountDownLatch(1);
		AtomicInteger holderInsideSeenByWaiter = new AtomicInteger(-1);
		CompletableFuture<String> waiter = CompletableFuture.supplyAsync(
				() -> this.orders.placeWaiting("order-1", () -> holderInsideSeenByWaiter.set(holderInside.get())),
				this.executor);
		// The waiter found the lock held and is waiting for it
		assertThat(this.store.rejected.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
		assertThat(waiter).isNotDone();
		holderFinish.countDown();
		assertThat(holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo("placed order-1");
		assertThat(waiter.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo("placed order-1");
		assertThat(holderInsideSeenByWaiter).hasValue(0);
	}

	private boolean isHeld(String key) {
		LockAttempt attempt = this.locks.tryAcquire(key, LockOptions.ttl(Duration.ofSeconds(5)).withRenewal(false));
		if (attempt.isAcquired()) {
			attempt.lease().close();
			return false;
		}
		return true;
	}

	private static void awaitBoth(CountDownLatch entered, CountDownLatch finish) {
		entered.countDown();
		await(finish);
	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Timed out waiting for " + latch);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	static class Orders {

		@ExclusiveRequest(name = "orders", key = "#orderId")
		public String place(String orderId, Runnable body) {
			body.run();
			return "placed " + orderId;
		}

		@ExclusiveRequest(name = "orders", key = "#orderId", waitTime = "10s")
		public String placeWaiting(String orderId, Runnable body) {
			body.run();
			return "placed " + orderId;
		}

		public String describe(String orderId) {
			return "order " + orderId;
		}

	}

	/**
	 * The in-memory store, with acquisitions that fail on demand as a store that cannot
	 * be reached does, and a latch counted down when an acquisition finds the lock held.
	 */
	static class SwitchableStore extends InMemoryLockStore {

		final AtomicInteger acquisitions = new AtomicInteger();

		volatile boolean failing;

		volatile CountDownLatch rejected = new CountDownLatch(0);

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			this.acquisitions.incrementAndGet();
			if (this.failing) {
				throw new LockStoreException(key, "store down", new IllegalStateException("connection refused"));
			}
			AcquireReply result = super.tryAcquire(key, token, ttl);
			if (!result.isAcquired()) {
				this.rejected.countDown();
			}
			return result;
		}

		@Override
		public boolean release(String key, String token) {
			if (this.failing) {
				throw new LockStoreException(key, "store down", new IllegalStateException("connection refused"));
			}
			return super.release(key, token);
		}

	}

}
