package dev.lockstarter.store.memcached;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.test.memcached.MemcachedServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Interleavings of {@link MemcachedLockStore}'s operations on one key against a real
 * Memcached, each driven to a chosen order. Every store is one application instance, on a
 * client of its own, whose {@link ObservedExpiry} counts on a {@link HeldClock} that the
 * test moves: a contender has watched the holder's item for a whole time-to-live as soon
 * as the test says so. An operation reads that clock between its {@code gets} and its
 * conditional write ({@code cas}, or {@code delete} with a CAS value), so holding the
 * thread at that read lets another instance write in between. Memcached's
 * {@code cas_badval} and {@code cas_misses} counters show that the held write was sent on
 * the CAS value it had read, and refused. docs/stores/memcached.md lists these tests
 * under "Interleavings".
 */
class MemcachedInterleavingTests {

	private static final Duration TTL = Duration.ofSeconds(2);

	/**
	 * The clock reads of an acquisition that takes a lock over, the last one just before
	 * its {@code cas}: when it sends {@code add}, when it judges the holder, when it
	 * sends the {@code cas}.
	 */
	private static final int READS_BEFORE_TAKEOVER = 3;

	@RegisterExtension
	static final MemcachedServerExtension memcached = new MemcachedServerExtension();

	private final MemcachedTestClients clients = new MemcachedTestClients();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final String key = "lock-test:interleaving:" + UUID.randomUUID();

	@AfterEach
	void shutDown() throws IOException {
		this.executor.shutdownNow();
		this.clients.close();
	}

	@Test
	void aHolderThatExtendsBetweenTheContendersReadAndItsTakeoverKeepsTheLock() throws Exception {
		HeldClock holderClock = new HeldClock();
		HeldClock contenderClock = new HeldClock();
		MemcachedLockStore holder = store(holderClock);
		MemcachedLockStore contender = store(contenderClock);
		assertThat(holder.tryAcquire(this.key, "holder", TTL).isAcquired()).isTrue();
		assertFirstSight(contender, "contender");
		contenderClock.advance(TTL);
		HeldClock.Hold takeover = contenderClock.holdRead(READS_BEFORE_TAKEOVER);
		Future<AcquireReply> acquisition = run(() -> contender.tryAcquire(this.key, "contender", TTL));
		takeover.awaitReached();
		long refused = stat("cas_badval");
		assertThat(holder.extend(this.key, "holder", TTL)).as("the holder's extension").isTrue();
		takeover.let();
		AcquireReply reply = acquisition.get(5, TimeUnit.SECONDS);
		assertThat(reply.isAcquired()).as("the takeover of a lock extended after it was read").isFalse();
		assertThat(reply.holderRemainingTtl()).as("the contender counts the new version from its first sight")
			.isEqualTo(TTL);
		assertThat(stat("cas_badval") - refused).as("takeovers refused on the CAS value they had read").isOne();
		assertHeldBy(holder, "holder");
	}

	@Test
	void aReleaseAfterTheTimeToLiveThatATakeoverOvertakesDeletesNothingOfTheNewHolder() throws Exception {
		HeldClock holderClock = new HeldClock();
		HeldClock contenderClock = new HeldClock();
		MemcachedLockStore holder = store(holderClock);
		MemcachedLockStore contender = store(contenderClock);
		assertThat(holder.tryAcquire(this.key, "stale", TTL).isAcquired()).isTrue();
		assertFirstSight(contender, "current");
		contenderClock.advance(TTL);
		holderClock.advance(TTL);
		// Held between its gets and its delete, with the CAS value it read
		HeldClock.Hold release = holderClock.holdRead(1);
		Future<Boolean> released = run(() -> holder.release(this.key, "stale"));
		release.awaitReached();
		assertThat(contender.tryAcquire(this.key, "current", TTL).isAcquired()).as("takeover").isTrue();
		release.let();
		assertThat(released.get(5, TimeUnit.SECONDS)).as("the stale holder's release").isFalse();
		assertHeldBy(contender, "current");
	}

	@Test
	void aReleaseAfterTheTimeToLiveThatLandsBeforeTheTakeoverFreesTheKeyForTheContender() throws Exception {
		HeldClock holderClock = new HeldClock();
		HeldClock contenderClock = new HeldClock();
		MemcachedLockStore holder = store(holderClock);
		MemcachedLockStore contender = store(contenderClock);
		assertThat(holder.tryAcquire(this.key, "stale", TTL).isAcquired()).isTrue();
		assertFirstSight(contender, "current");
		contenderClock.advance(TTL);
		holderClock.advance(TTL);
		HeldClock.Hold takeover = contenderClock.holdRead(READS_BEFORE_TAKEOVER);
		Future<AcquireReply> acquisition = run(() -> contender.tryAcquire(this.key, "current", TTL));
		takeover.awaitReached();
		long missed = stat("cas_misses");
		assertThat(holder.release(this.key, "stale")).as("a release after the holder's own TTL").isFalse();
		takeover.let();
		assertThat(acquisition.get(5, TimeUnit.SECONDS).isAcquired()).as("the contender, after the release").isTrue();
		assertThat(stat("cas_misses") - missed).as("takeovers refused because the item was deleted").isOne();
		assertHeldBy(contender, "current");
	}

	@Test
	void anExtensionOvertakenByATakeoverFailsAndLeavesTheNewHolder() throws Exception {
		HeldClock holderClock = new HeldClock();
		HeldClock contenderClock = new HeldClock();
		MemcachedLockStore holder = store(holderClock);
		MemcachedLockStore contender = store(contenderClock);
		assertThat(holder.tryAcquire(this.key, "stale", TTL).isAcquired()).isTrue();
		assertFirstSight(contender, "current");
		contenderClock.advance(TTL);
		// Held between its gets and its cas, its own count still within the TTL
		HeldClock.Hold extension = holderClock.holdRead(1);
		Future<Boolean> extended = run(() -> holder.extend(this.key, "stale", TTL));
		extension.awaitReached();
		assertThat(contender.tryAcquire(this.key, "current", TTL).isAcquired()).as("takeover").isTrue();
		long refused = stat("cas_badval");
		extension.let();
		assertThat(extended.get(5, TimeUnit.SECONDS)).as("the stale holder's extension").isFalse();
		assertThat(stat("cas_badval") - refused).as("extensions refused on the CAS value they had read").isOne();
		assertHeldBy(contender, "current");
	}

	@Test
	void ofTwoContendersThatWatchedTheSameVersionExactlyOneTakesTheLockOver() throws Exception {
		HeldClock firstClock = new HeldClock();
		HeldClock secondClock = new HeldClock();
		MemcachedLockStore crashed = store(new HeldClock());
		MemcachedLockStore first = store(firstClock);
		MemcachedLockStore second = store(secondClock);
		assertThat(crashed.tryAcquire(this.key, "crashed", TTL).isAcquired()).isTrue();
		assertFirstSight(first, "first");
		assertFirstSight(second, "second");
		firstClock.advance(TTL);
		secondClock.advance(TTL);
		HeldClock.Hold takeover = secondClock.holdRead(READS_BEFORE_TAKEOVER);
		Future<AcquireReply> late = run(() -> second.tryAcquire(this.key, "second", TTL));
		takeover.awaitReached();
		assertThat(first.tryAcquire(this.key, "first", TTL).isAcquired()).as("the first takeover").isTrue();
		long refused = stat("cas_badval");
		takeover.let();
		AcquireReply reply = late.get(5, TimeUnit.SECONDS);
		assertThat(reply.isAcquired()).as("the second takeover, on the same version").isFalse();
		assertThat(reply.holderRemainingTtl()).isEqualTo(TTL);
		assertThat(stat("cas_badval") - refused).as("takeovers refused on the CAS value they had read").isOne();
		assertHeldBy(first, "first");
	}

	/**
	 * The owner check of {@code putResult} and its {@code set} of the result item are two
	 * steps, which no CAS value ties together: a holder held between them past its
	 * time-to-live writes its result after another instance took the lock over. What the
	 * store documents, made to happen.
	 */
	@Test
	void aResultCheckedBeforeATakeoverIsWrittenAfterIt() throws Exception {
		HeldClock holderClock = new HeldClock();
		HeldClock contenderClock = new HeldClock();
		MemcachedLockStore holder = store(holderClock);
		MemcachedLockStore contender = store(contenderClock);
		assertThat(holder.tryAcquire(this.key, "stale", TTL).isAcquired()).isTrue();
		assertFirstSight(contender, "current");
		contenderClock.advance(TTL);
		HeldClock.Hold put = holderClock.holdRead(1);
		Future<Boolean> kept = run(() -> holder.putResult(this.key, "stale", bytes("stale"), Duration.ofMinutes(1)));
		put.awaitReached();
		assertThat(contender.tryAcquire(this.key, "current", TTL).isAcquired()).as("takeover").isTrue();
		put.let();
		assertThat(kept.get(5, TimeUnit.SECONDS)).as("the stale holder's result, checked before the takeover").isTrue();
		assertThat(contender.getResult(this.key)).as("the result the new holder finds").isEqualTo(bytes("stale"));
		assertThat(contender.putResult(this.key, "current", bytes("current"), Duration.ofMinutes(1))).isTrue();
		assertThat(contender.getResult(this.key)).isEqualTo(bytes("current"));
		assertHeldBy(contender, "current");
	}

	/** The contender's first sight of the holder's item: refused for a whole TTL. */
	private void assertFirstSight(MemcachedLockStore contender, String token) {
		AcquireReply first = contender.tryAcquire(this.key, token, TTL);
		assertThat(first.isAcquired()).as("the first try of %s", token).isFalse();
		assertThat(first.holderRemainingTtl()).isEqualTo(TTL);
	}

	/**
	 * The lock is the token's: another instance is refused, and the owner extends and
	 * releases it.
	 */
	private void assertHeldBy(MemcachedLockStore owner, String token) {
		assertThat(store(new HeldClock()).tryAcquire(this.key, "probe", TTL).isAcquired()).as("held").isFalse();
		assertThat(owner.extend(this.key, token, TTL)).as("extended by %s", token).isTrue();
		assertThat(owner.release(this.key, token)).as("released by %s", token).isTrue();
	}

	private MemcachedLockStore store(HeldClock clock) {
		return new MemcachedLockStore(this.clients.open(memcached.server().socketAddress()), Clock.systemUTC(),
				new ObservedExpiry(clock, 1000));
	}

	private <T> Future<T> run(Callable<T> operation) {
		return this.executor.submit(operation);
	}

	private static long stat(String name) {
		return Long.parseLong(memcached.server().stats().get(name));
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * A monotonic clock that the test moves, and that can hold the thread that reads it a
	 * given number of times from now until the test lets it go: the value that thread
	 * read stays the time of its operation.
	 */
	static final class HeldClock implements LongSupplier {

		private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

		private final AtomicReference<Hold> armed = new AtomicReference<>();

		@Override
		public long getAsLong() {
			long now = this.nanos.get();
			Hold hold = this.armed.get();
			if (hold != null && hold.isDue() && this.armed.compareAndSet(hold, null)) {
				hold.hold();
			}
			return now;
		}

		void advance(Duration duration) {
			this.nanos.addAndGet(duration.toNanos());
		}

		/**
		 * Hold the thread that makes the {@code nth} read of this clock from now.
		 * @param nth which read, 1 for the next one
		 * @return the hold, to wait for the thread and to let it go
		 */
		Hold holdRead(int nth) {
			Hold hold = new Hold(nth);
			this.armed.set(hold);
			return hold;
		}

		static final class Hold {

			private final AtomicInteger readsLeft;

			private final CountDownLatch reached = new CountDownLatch(1);

			private final CountDownLatch let = new CountDownLatch(1);

			Hold(int nth) {
				this.readsLeft = new AtomicInteger(nth);
			}

			void awaitReached() throws InterruptedException {
				assertThat(this.reached.await(5, TimeUnit.SECONDS)).as("an operation reached the held read").isTrue();
			}

			void let() {
				this.let.countDown();
			}

			private boolean isDue() {
				return this.readsLeft.decrementAndGet() == 0;
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
