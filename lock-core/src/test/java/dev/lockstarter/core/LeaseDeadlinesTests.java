package dev.lockstarter.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.core.FinishedAttempt.Outcome;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A lease is lost at its local deadline, its time-to-live less the loss margin after the
 * last write the store confirmed, whether it is renewed or not and whether its renewals
 * failed, hang or were never tried. Each loss must come before the store could let
 * another owner in: before the time-to-live, counted from when the acquisition returned.
 */
class LeaseDeadlinesTests {

	private static final Duration TTL = Duration.ofMillis(800);

	private final FaultyStore store = new FaultyStore();

	private final LockTemplate locks = new LockTemplate(this.store, "t:");

	@AfterEach
	void destroy() {
		this.store.release.countDown();
		this.locks.destroy();
	}

	@Test
	void aLeaseWithoutRenewalIsLostAtItsLocalDeadline() throws Exception {
		Loss loss = acquireWatchingLoss(LockOptions.ttl(TTL).withRenewal(false));
		assertThat(loss.lease.isHeld()).isTrue();
		loss.assertLostBeforeTheStoreExpiry();
		assertThat(loss.lease.isHeld()).isFalse();
		assertThat(loss.lease.release()).as("release of a lost lease").isFalse();
	}

	@Test
	void aLeaseWhoseRenewalsFailIsLostAtItsLocalDeadline() throws Exception {
		this.store.failExtensions = true;
		Loss loss = acquireWatchingLoss(LockOptions.ttl(TTL));
		loss.assertLostBeforeTheStoreExpiry();
		assertThat(this.store.extensions.get()).as("renewals tried").isPositive();
	}

	@Test
	void aLeaseWhoseRenewalHangsIsLostAtItsLocalDeadline() throws Exception {
		// The renewer's thread waits in the store call, as it would for a store that
		// does not answer within its timeout; the loss must not wait for it
		this.store.hangExtensions = true;
		Loss loss = acquireWatchingLoss(LockOptions.ttl(TTL));
		loss.assertLostBeforeTheStoreExpiry();
		assertThat(this.store.extensions.get()).as("renewals sent").isPositive();
	}

	@Test
	void aRenewalConfirmedAfterTheDeadlineLeavesTheLeaseLostAndFreesItsLock() throws Exception {
		// The first renewal is sent a third into the time-to-live and answered after the
		// deadline: the store has extended the lock, but the lease was lost meanwhile
		this.store.delayExtensions = TTL.dividedBy(2).plusMillis(100);
		Loss loss = acquireWatchingLoss(LockOptions.ttl(TTL));
		loss.assertLostBeforeTheStoreExpiry();
		assertThat(this.store.extensionsAnswered.await(TTL.toMillis() * 3, TimeUnit.MILLISECONDS)).isTrue();
		// Well before the extended lock would expire (a time-to-live after the renewal
		// was sent, some 200 ms from now)
		await("the release of the lock that the late renewal extended").atMost(Duration.ofMillis(100))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> this.store.timeToExpiry("t:k").isZero());
		assertThat(loss.lease.isHeld()).isFalse();
	}

	@Test
	void anExtensionConfirmedAfterTheDeadlineAnswersFalseAndFreesItsLock() throws Exception {
		// Applied at once, for half a minute, but answered a whole time-to-live after it
		// was sent: past the lease's deadline
		Loss loss = acquireWatchingLoss(LockOptions.ttl(TTL).withRenewal(false));
		this.store.delayExtensionAnswers = TTL;
		assertThat(loss.lease.extend(Duration.ofSeconds(30))).as("the extension answered past the deadline").isFalse();
		assertThat(loss.lost.getCount()).as("lost").isZero();
		assertThat(loss.lease.isHeld()).isFalse();
		// Extended for half a minute: only the release by token frees it this soon
		await("the release of the lock that the late extension lengthened").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> this.store.timeToExpiry("t:k").isZero());
		assertThat(loss.lease.extend(TTL)).as("a lost lease's extension").isFalse();
	}

	@Test
	void aSlowLossListenerDelaysNeitherTheLossActionsNorAnotherLeasesDeadline() throws Exception {
		// A listener that blocks until the test ends, as a slow @EventListener would
		CountDownLatch listenerCalled = new CountDownLatch(2);
		CountDownLatch listenerMayReturn = new CountDownLatch(1);
		this.locks.addListener(new LockListener() {

			@Override
			public void lost(HeldLock lock, String reason) {
				listenerCalled.countDown();
				try {
					listenerMayReturn.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}

		});
		Loss first = acquireWatchingLoss("first", LockOptions.ttl(TTL).withRenewal(false));
		Loss second = acquireWatchingLoss("second", LockOptions.ttl(TTL).withRenewal(false));
		try {
			first.assertLostBeforeTheStoreExpiry();
			second.assertLostBeforeTheStoreExpiry();
			assertThat(listenerCalled.getCount()).as("listeners still blocked, or not yet called").isPositive();
		}
		finally {
			listenerMayReturn.countDown();
		}
		assertThat(listenerCalled.await(10, TimeUnit.SECONDS)).as("every loss told to the listener").isTrue();
	}

	@Test
	void anAcquisitionConfirmedAfterItsLocalDeadlineIsNotHandedOutAndItsLockIsReleased() {
		List<FinishedAttempt> finished = new CopyOnWriteArrayList<>();
		this.locks.addListener(new LockListener() {

			@Override
			public void acquisitionFinished(FinishedAttempt attempt) {
				finished.add(attempt);
			}

		});
		// The request reaches the store 0.95 of a time-to-live after it was sent: the
		// lock is granted, with a whole time-to-live from then, to a caller whose local
		// deadline has passed
		this.store.delayAcquisitions = TTL.multipliedBy(19).dividedBy(20);
		assertTtlTooShort(() -> this.locks.acquire("k", LockOptions.ttl(TTL)));
		assertReleasedLongBeforeItExpires();
		ReactiveLockTemplate reactive = new ReactiveLockTemplate(this.locks);
		assertTtlTooShort(() -> reactive.tryAcquire("k", LockOptions.ttl(TTL)).block(Duration.ofSeconds(5)));
		assertReleasedLongBeforeItExpires();
		// Neither is a store failure
		assertThat(finished).extracting(FinishedAttempt::outcome)
			.containsExactly(Outcome.TTL_TOO_SHORT, Outcome.TTL_TOO_SHORT);
		this.store.delayAcquisitions = Duration.ZERO;
		Lease next = this.locks.acquire("k", LockOptions.ttl(TTL));
		assertThat(next.isHeld()).isTrue();
		assertThat(next.release()).isTrue();
	}

	private static void assertTtlTooShort(ThrowingCallable acquisition) {
		assertThatExceptionOfType(LockTtlTooShortException.class).isThrownBy(acquisition)
			.withMessageContaining("past its time-to-live of " + TTL.toMillis() + " ms")
			.satisfies((ex) -> {
				assertThat(ex).isNotInstanceOf(LockStoreException.class);
				assertThat(ex.getLockName()).isEqualTo("k");
				assertThat(ex.getTtl()).isEqualTo(TTL);
				assertThat(ex.getAnsweredAfter()).isGreaterThanOrEqualTo(TTL.multipliedBy(19).dividedBy(20));
			});
	}

	private void assertReleasedLongBeforeItExpires() {
		// Granted a moment ago for a whole time-to-live: only the release by token
		// frees it this soon
		await("the release of the late grant").atMost(TTL.dividedBy(2))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> this.store.timeToExpiry("t:k").isZero());
	}

	@Test
	void aConfirmedRenewalMovesTheDeadline() throws Exception {
		Loss loss = acquireWatchingLoss(LockOptions.ttl(TTL));
		assertThat(loss.lost.await(3 * TTL.toMillis(), TimeUnit.MILLISECONDS)).as("lost while renewed").isFalse();
		assertThat(loss.lease.isHeld()).isTrue();
		assertThat(loss.lease.release()).isTrue();
	}

	@Test
	void aShorterExtensionMovesTheDeadlineEarlier() throws Exception {
		Loss loss = acquireWatchingLoss(LockOptions.ttl(Duration.ofSeconds(30)).withRenewal(false));
		long sentAt = System.nanoTime();
		assertThat(loss.lease.extend(TTL)).isTrue();
		long returnedAt = System.nanoTime();
		assertThat(loss.lost.await(TTL.toMillis() * 3, TimeUnit.MILLISECONDS)).as("lost").isTrue();
		assertThat(loss.lostAt.get() - sentAt).as("lost after the extension's local deadline")
			.isGreaterThanOrEqualTo(TTL.toNanos() * 9 / 10);
		assertThat(loss.lostAt.get() - returnedAt).as("lost before the extension expired in the store")
			.isLessThan(TTL.toNanos());
	}

	@Test
	void theMarginIsAShareOfTheTimeToLive() throws Exception {
		this.locks.setLossMargin(0.5);
		Loss loss = acquireWatchingLoss(LockOptions.ttl(TTL).withRenewal(false));
		assertThat(loss.lost.await(TTL.toMillis() * 3, TimeUnit.MILLISECONDS)).isTrue();
		assertThat(loss.lostAt.get() - loss.returnedAt).as("lost by half the time-to-live")
			.isLessThan(TTL.toNanos() * 3 / 4);
		assertThatIllegalArgumentException().isThrownBy(() -> this.locks.setLossMargin(0))
			.withMessageContaining("loss margin");
		assertThatIllegalArgumentException().isThrownBy(() -> this.locks.setLossMargin(0.6))
			.withMessageContaining("loss margin");
	}

	private Loss acquireWatchingLoss(LockOptions options) {
		return acquireWatchingLoss("k", options);
	}

	private Loss acquireWatchingLoss(String key, LockOptions options) {
		long before = System.nanoTime();
		Lease lease = this.locks.acquire(key, options);
		Loss loss = new Loss(lease, before, System.nanoTime(), options.getTtl());
		((LossNotifyingLease) lease).whenLost((reason) -> {
			loss.lostAt.set(System.nanoTime());
			loss.lost.countDown();
		});
		return loss;
	}

	private static final class Loss {

		final Lease lease;

		final long before;

		final long returnedAt;

		final Duration ttl;

		final CountDownLatch lost = new CountDownLatch(1);

		final AtomicLong lostAt = new AtomicLong();

		Loss(Lease lease, long before, long returnedAt, Duration ttl) {
			this.lease = lease;
			this.before = before;
			this.returnedAt = returnedAt;
			this.ttl = ttl;
		}

		void assertLostBeforeTheStoreExpiry() throws InterruptedException {
			assertThat(this.lost.await(this.ttl.toMillis() * 3, TimeUnit.MILLISECONDS)).as("lost").isTrue();
			long lostAt = this.lostAt.get();
			assertThat(lostAt - this.before).as("lost no earlier than the local deadline")
				.isGreaterThanOrEqualTo(this.ttl.toNanos() * 9 / 10);
			assertThat(lostAt - this.returnedAt).as("lost before the store could let the lock expire")
				.isLessThan(this.ttl.toNanos());
		}

	}

	/** The in-memory store, whose extensions can fail or hang. */
	private static final class FaultyStore extends InMemoryLockStore {

		volatile boolean failExtensions;

		volatile boolean hangExtensions;

		volatile Duration delayExtensions = Duration.ZERO;

		volatile Duration delayAcquisitions = Duration.ZERO;

		volatile Duration delayExtensionAnswers = Duration.ZERO;

		final CountDownLatch extensionsAnswered = new CountDownLatch(1);

		final AtomicLong extensions = new AtomicLong();

		final CountDownLatch release = new CountDownLatch(1);

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			if (!this.delayAcquisitions.isZero()) {
				try {
					Thread.sleep(this.delayAcquisitions.toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return super.tryAcquire(key, token, ttl);
		}

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			boolean extended = super.extend(key, token, ttl);
			if (!this.delayExtensionAnswers.isZero()) {
				try {
					Thread.sleep(this.delayExtensionAnswers.toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return extended;
		}

		@Override
		public boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl) {
			this.extensions.incrementAndGet();
			if (this.failExtensions) {
				throw new LockStoreException(keys.get(0), "The store is unreachable (test)", null);
			}
			if (this.hangExtensions) {
				try {
					this.release.await(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				throw new LockStoreException(keys.get(0), "The store did not answer in time (test)", null);
			}
			if (!this.delayExtensions.isZero()) {
				try {
					Thread.sleep(this.delayExtensions.toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				boolean[] extended = super.extendAll(keys, tokens, ttl);
				this.extensionsAnswered.countDown();
				return extended;
			}
			return super.extendAll(keys, tokens, ttl);
		}

	}

}
