package dev.lockstarter.store.memory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.MultiKeyAcquireReply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Interleavings of {@link InMemoryLockStore}'s operations on one key, each driven to a
 * chosen order. The store reads its monotonic clock once at the start of an operation,
 * before its atomic update of the key's entry, so a {@link HeldClock} that holds the
 * thread reading it stops that operation between the two, while the test moves the clock
 * past the time-to-live and lets another owner act first. The outcome shows that the held
 * operation saw the other's update: it releases, extends or overwrites nothing of a new
 * holder, and a reader or a single-key acquisition finds the writer's wait or the whole
 * set. docs/stores/memory.md lists these tests under "Interleavings".
 */
class InMemoryInterleavingTests {

	private static final Duration TTL = Duration.ofMillis(100);

	private final HeldClock clock = new HeldClock();

	private final InMemoryLockStore store = new InMemoryLockStore(this.clock);

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterEach
	void shutDown() {
		this.executor.shutdownNow();
	}

	@Test
	void aReleaseThatReadTheTimeBeforeATakeoverLeavesTheNewHolderAlone() throws Exception {
		assertThat(this.store.tryAcquire("key", "stale", TTL).isAcquired()).isTrue();
		HeldClock.Hold hold = this.clock.holdNextRead();
		Future<Boolean> release = run(() -> this.store.release("key", "stale"));
		hold.awaitReached();
		// The release read a time within the TTL; the TTL passes and another owner
		// takes the lock over before the release's update
		this.clock.advance(TTL);
		assertThat(this.store.tryAcquire("key", "current", TTL).isAcquired()).as("takeover").isTrue();
		hold.let();
		assertThat(release.get(5, TimeUnit.SECONDS)).as("the stale holder's release").isFalse();
		assertHeldBy("key", "current");
	}

	@Test
	void aReleaseThatLandsAfterTheTimeToLiveBeforeATakeoverFreesTheKeyAndAnswersFalse() {
		assertThat(this.store.tryAcquire("key", "stale", TTL).isAcquired()).isTrue();
		this.clock.advance(TTL);
		assertThat(this.store.release("key", "stale")).as("a release after the TTL").isFalse();
		assertThat(this.store.size()).as("entries left by the late release").isZero();
		assertThat(this.store.tryAcquire("key", "current", TTL).isAcquired()).as("takeover after it").isTrue();
		assertHeldBy("key", "current");
	}

	@Test
	void anExtensionThatReadTheTimeBeforeATakeoverDoesNotExtendTheNewHolder() throws Exception {
		assertThat(this.store.tryAcquire("key", "stale", TTL).isAcquired()).isTrue();
		HeldClock.Hold hold = this.clock.holdNextRead();
		Future<Boolean> extension = run(() -> this.store.extend("key", "stale", Duration.ofMinutes(5)));
		hold.awaitReached();
		this.clock.advance(TTL);
		assertThat(this.store.tryAcquire("key", "current", TTL).isAcquired()).as("takeover").isTrue();
		hold.let();
		assertThat(extension.get(5, TimeUnit.SECONDS)).as("the stale holder's extension").isFalse();
		assertThat(this.store.timeToExpiry("key")).as("the new holder's time to expiry").isEqualTo(TTL);
		assertHeldBy("key", "current");
	}

	@Test
	void aContenderThatReadTheTimeBeforeAnotherContendersTakeoverFindsTheLockHeld() throws Exception {
		assertThat(this.store.tryAcquire("key", "crashed", TTL).isAcquired()).isTrue();
		this.clock.advance(TTL);
		HeldClock.Hold hold = this.clock.holdNextRead();
		Future<AcquireReply> late = run(() -> this.store.tryAcquire("key", "late", TTL));
		hold.awaitReached();
		AcquireReply first = this.store.tryAcquire("key", "first", TTL);
		assertThat(first.isAcquired()).as("the first contender's takeover").isTrue();
		hold.let();
		AcquireReply second = late.get(5, TimeUnit.SECONDS);
		assertThat(second.isAcquired()).as("the other contender, after the takeover").isFalse();
		assertThat(second.holderRemainingTtl()).isEqualTo(TTL);
		assertHeldBy("key", "first");
	}

	@Test
	void exactlyOneOfSimultaneousContendersTakesOverAnExpiredLock() throws Exception {
		int contenders = 8;
		for (int round = 0; round < 50; round++) {
			String key = "key-" + round;
			assertThat(this.store.tryAcquire(key, "crashed", TTL).isAcquired()).isTrue();
			this.clock.advance(TTL);
			CountDownLatch go = new CountDownLatch(1);
			List<Future<AcquireReply>> attempts = new ArrayList<>();
			for (int i = 0; i < contenders; i++) {
				String token = "contender-" + i;
				attempts.add(run(() -> {
					go.await();
					return this.store.tryAcquire(key, token, TTL);
				}));
			}
			go.countDown();
			List<Long> winners = new ArrayList<>();
			for (Future<AcquireReply> attempt : attempts) {
				AcquireReply reply = attempt.get(5, TimeUnit.SECONDS);
				if (reply.isAcquired()) {
					winners.add(reply.fencingToken());
				}
			}
			assertThat(winners).as("takeovers of %s by %d simultaneous contenders", key, contenders).hasSize(1);
			assertThat(this.store.release(key, "crashed")).as("the crashed holder's release").isFalse();
		}
	}

	@Test
	void aResultKeptAfterATakeoverIsRefused() throws Exception {
		assertThat(this.store.tryAcquire("key", "stale", TTL).isAcquired()).isTrue();
		HeldClock.Hold hold = this.clock.holdNextRead();
		Future<Boolean> put = run(() -> this.store.putResult("key", "stale", new byte[] { 1 }, Duration.ofMinutes(1)));
		hold.awaitReached();
		this.clock.advance(TTL);
		assertThat(this.store.tryAcquire("key", "current", TTL).isAcquired()).as("takeover").isTrue();
		hold.let();
		assertThat(put.get(5, TimeUnit.SECONDS)).as("the stale holder's result").isFalse();
		assertThat(this.store.getResult("key")).isNull();
		assertThat(this.store.putResult("key", "current", new byte[] { 2 }, Duration.ofMinutes(1))).isTrue();
		assertThat(this.store.getResult("key")).containsExactly(2);
	}

	@Test
	void aSingleKeyAcquisitionWaitsForAnOperationOnSeveralKeysAndSeesItsWholeSet() throws Exception {
		HeldClock.Hold hold = this.clock.holdNextRead();
		Future<MultiKeyAcquireReply> set = run(() -> this.store.tryAcquireAll(List.of("a", "b"), "set", TTL));
		hold.awaitReached();
		// The operation on several keys holds the store's key-set lock exclusively
		AtomicReference<Thread> single = new AtomicReference<>();
		Future<AcquireReply> acquisition = run(() -> {
			single.set(Thread.currentThread());
			return this.store.tryAcquire("b", "single", TTL);
		});
		await().atMost(Duration.ofSeconds(5))
			.until(() -> single.get() != null && single.get().getState() == Thread.State.WAITING);
		assertThat(acquisition).as("the single-key acquisition while the set is being taken").isNotDone();
		hold.let();
		assertThat(set.get(5, TimeUnit.SECONDS).isAcquired()).as("the set").isTrue();
		AcquireReply reply = acquisition.get(5, TimeUnit.SECONDS);
		assertThat(reply.isAcquired()).as("the single-key acquisition of a key of the set").isFalse();
		assertThat(reply.holderRemainingTtl()).isEqualTo(TTL);
		assertThat(this.store.releaseAll(List.of("a", "b"), "set")).containsExactly(true, true);
	}

	@Test
	void aPlaceExtensionThatReadTheTimeBeforeATakeoverOfThePlaceExtendsNothing() throws Exception {
		assertThat(this.store.tryAcquirePermit("key", "stale", TTL, 1).isAcquired()).isTrue();
		HeldClock.Hold hold = this.clock.holdNextRead();
		Future<Boolean> extension = run(() -> this.store.extendShared("key", "stale", Duration.ofMinutes(5)));
		hold.awaitReached();
		this.clock.advance(TTL);
		assertThat(this.store.tryAcquirePermit("key", "current", TTL, 1).isAcquired()).as("the expired place taken")
			.isTrue();
		hold.let();
		assertThat(extension.get(5, TimeUnit.SECONDS)).as("the stale holder's extension").isFalse();
		assertThat(this.store.sharedTimeToExpiry("key")).as("the new holder's time to expiry").isEqualTo(TTL);
		assertThat(this.store.tryAcquirePermit("key", "probe", TTL, 1).isAcquired()).as("the only permit").isFalse();
		assertThat(this.store.releaseShared("key", "current")).isTrue();
	}

	@Test
	void aPlaceReleaseThatReadTheTimeBeforeATakeoverOfThePlaceFreesNothing() throws Exception {
		assertThat(this.store.tryAcquirePermit("key", "stale", TTL, 1).isAcquired()).isTrue();
		HeldClock.Hold hold = this.clock.holdNextRead();
		Future<Boolean> release = run(() -> this.store.releaseShared("key", "stale"));
		hold.awaitReached();
		this.clock.advance(TTL);
		assertThat(this.store.tryAcquirePermit("key", "current", TTL, 1).isAcquired()).as("the expired place taken")
			.isTrue();
		hold.let();
		assertThat(release.get(5, TimeUnit.SECONDS)).as("the stale holder's release").isFalse();
		assertThat(this.store.tryAcquirePermit("key", "probe", TTL, 1).isAcquired()).as("the only permit").isFalse();
		assertThat(this.store.releaseShared("key", "current")).isTrue();
	}

	@Test
	void aReaderThatReadTheTimeBeforeAWritersRefusedTryIsHeldBackByItsWait() throws Exception {
		assertThat(this.store.tryAcquireRead("key", "first-reader", TTL).isAcquired()).isTrue();
		HeldClock.Hold hold = this.clock.holdNextRead();
		Future<AcquireReply> reader = run(() -> this.store.tryAcquireRead("key", "second-reader", TTL));
		hold.awaitReached();
		assertThat(this.store.tryAcquireWrite("key", "writer", TTL, Duration.ofMinutes(1)).isAcquired())
			.as("the writer, refused: it records its wait")
			.isFalse();
		hold.let();
		assertThat(reader.get(5, TimeUnit.SECONDS).isAcquired()).as("a reader that arrived before the writer's try")
			.isFalse();
		assertThat(this.store.releaseShared("key", "first-reader")).isTrue();
		assertThat(this.store.tryAcquireWrite("key", "writer", TTL, Duration.ofMinutes(1)).isAcquired()).isTrue();
		assertThat(this.store.releaseShared("key", "writer")).isTrue();
	}

	private <T> Future<T> run(Callable<T> operation) {
		return this.executor.submit(operation);
	}

	private void assertHeldBy(String key, String token) {
		AcquireReply other = this.store.tryAcquire(key, "probe", TTL);
		assertThat(other.isAcquired()).as("%s held", key).isFalse();
		assertThat(this.store.extend(key, token, TTL)).as("%s extended by %s", key, token).isTrue();
		assertThat(this.store.release(key, token)).as("%s released by %s", key, token).isTrue();
	}

	/**
	 * A monotonic clock that the test moves, and that can hold the next thread that reads
	 * it until the test lets it go: the value that thread read stays the time of its
	 * operation.
	 */
	static final class HeldClock implements LongSupplier {

		private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

		private final AtomicReference<Hold> armed = new AtomicReference<>();

		@Override
		public long getAsLong() {
			long now = this.nanos.get();
			Hold hold = this.armed.getAndSet(null);
			if (hold != null) {
				hold.hold();
			}
			return now;
		}

		void advance(Duration duration) {
			this.nanos.addAndGet(duration.toNanos());
		}

		/**
		 * Hold the next thread that reads this clock.
		 * @return the hold, to wait for the thread and to let it go
		 */
		Hold holdNextRead() {
			Hold hold = new Hold();
			this.armed.set(hold);
			return hold;
		}

		static final class Hold {

			private final CountDownLatch reached = new CountDownLatch(1);

			private final CountDownLatch let = new CountDownLatch(1);

			void awaitReached() throws InterruptedException {
				assertThat(this.reached.await(5, TimeUnit.SECONDS)).as("an operation read the held clock").isTrue();
			}

			void let() {
				this.let.countDown();
			}

			private void hold() {
				this.reached.countDown();
				try {
					if (!this.let.await(10, TimeUnit.SECONDS)) {
						throw new IllegalStateException("The held operation was never let go");
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}

		}

	}

}
