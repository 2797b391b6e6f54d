package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.core.FinishedAttempt;
import dev.lockstarter.core.FinishedAttempt.Outcome;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockListener;
import dev.lockstarter.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A subscriber of a locked reactive method that cancels at the moment its lock is
 * granted, before the grant has reached the code that releases on cancellation (a client
 * that disconnects just then): the lock is released all the same, on every path that
 * takes one. The cancellation is made by a listener of the acquisition, which runs
 * between the grant and its delivery, so the interleaving is the same on every run.
 */
class ReactiveCancelOnGrantTests {

	private static final Duration BLOCK = Duration.ofSeconds(10);

	private final InterceptedLocks intercepted = new InterceptedLocks();

	private final LockTemplate locks = this.intercepted.locks;

	private final Methods target = new Methods();

	private final Methods methods = this.intercepted.proxy(this.target);

	@Test
	void monoCancelledAsItsLockIsGrantedReleasesIt() {
		cancelOnGrant(() -> this.methods.register("ann"));
		assertNotRunAndFree("registration:ann");
	}

	@Test
	void fluxOfEachKeyCancelledAsItsLocksAreGrantedReleasesThemAll() {
		cancelOnGrant(() -> this.methods.transfer("A", "B"));
		assertNotRunAndFree("account:A", "account:B");
	}

	@Test
	void sharedResultCallCancelledAsItsLockIsGrantedReleasesIt() {
		cancelOnGrant(() -> this.methods.report("r1"));
		assertNotRunAndFree("report:r1");
	}

	@Test
	void sharedResultWaiterCancelledAsItsLockIsGrantedReleasesIt() {
		HeldByTheTest holder = new HeldByTheTest(this.locks, "report:r2");
		CancellingSubscriber subscriber = new CancellingSubscriber();
		this.locks.addListener(subscriber);
		this.methods.waitingReport("r2").subscribe(subscriber);
		// The holder's release lets the waiter in, whose grant is cancelled
		holder.release();
		subscriber.awaitCancelled();
		assertNotRunAndFree("report:r2");
	}

	private void cancelOnGrant(Supplier<Publisher<String>> call) {
		CancellingSubscriber subscriber = new CancellingSubscriber();
		this.locks.addListener(subscriber);
		Flux.from(call.get()).subscribe(subscriber);
		subscriber.awaitCancelled();
	}

	/** The method never started, and each key is free. */
	private void assertNotRunAndFree(String... keys) {
		assertThat(this.target.runs).hasValue(0);
		for (String key : keys) {
			assertFree(key);
		}
	}

	/**
	 * Released by the cancellation (which releases in the background), long before the 30
	 * s time-to-live would free it.
	 */
	private void assertFree(String key) {
		await().atMost(BLOCK)
			.untilAsserted(() -> assertThat(this.locks.getHeldLocks()).noneMatch((held) -> held.key().equals(key)));
		LockAttempt attempt = this.locks.tryAcquire(key, Duration.ofSeconds(30));
		assertThat(attempt.isAcquired()).as("%s acquired after the cancelled call", key).isTrue();
		attempt.lease().close();
	}

	/**
	 * Cancels its subscription when told of the first acquisition, from the thread that
	 * tells it, which then goes on delivering the grant.
	 */
	static final class CancellingSubscriber extends BaseSubscriber<Object> implements LockListener {

		private final CountDownLatch cancelled = new CountDownLatch(1);

		private final List<Object> values = new CopyOnWriteArrayList<>();

		@Override
		public void acquisitionFinished(FinishedAttempt acquisition) {
			if (acquisition.outcome() == Outcome.ACQUIRED && this.cancelled.getCount() > 0) {
				dispose();
				this.cancelled.countDown();
			}
		}

		@Override
		protected void hookOnNext(Object value) {
			this.values.add(value);
		}

		void awaitCancelled() {
			try {
				assertThat(this.cancelled.await(BLOCK.toMillis(), TimeUnit.MILLISECONDS)).as("granted and cancelled")
					.isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			assertThat(this.values).isEmpty();
		}

	}

	/** A lock held by the test itself, until released. */
	static final class HeldByTheTest {

		private final Lease lease;

		HeldByTheTest(LockTemplate locks, String key) {
			this.lease = locks.tryAcquire(key, Duration.ofSeconds(30)).orElseThrow();
		}

		void release() {
			this.lease.close();
		}

	}

	static class Methods {

		final AtomicInteger runs = new AtomicInteger();

		@ExclusiveRequest(name = "registration", key = "#userName")
		public Mono<String> register(String userName) {
			return Mono.fromSupplier(() -> "registered " + userName + " " + this.runs.incrementAndGet());
		}

		@ExclusiveRequest(name = "account", key = { "#from", "#to" }, eachKey = true)
		public Flux<String> transfer(String from, String to) {
			return Flux.defer(() -> {
				this.runs.incrementAndGet();
				return Flux.just(from, to);
			});
		}

		@ExclusiveRequest(name = "report", key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public Mono<String> report(String id) {
			return Mono.fromSupplier(() -> "report " + id + " " + this.runs.incrementAndGet());
		}

		@ExclusiveRequest(name = "report", key = "#id", onConflict = OnConflict.SHARE_RESULT, waitTime = "5s")
		public Mono<String> waitingReport(@Nullable String id) {
			return Mono.fromSupplier(() -> "report " + id + " " + this.runs.incrementAndGet());
		}

	}

}
