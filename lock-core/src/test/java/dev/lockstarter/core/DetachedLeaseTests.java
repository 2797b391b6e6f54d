package dev.lockstarter.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * Leases handed to an owner outside the JVM: {@link LockTemplate#tryAcquireDetached},
 * then extended, released and inspected by key and owner token, through another template
 * on the same store (as another instance of a lock service would).
 */
class DetachedLeaseTests {

	private final InMemoryLockStore store = new InMemoryLockStore();

	private final LockTemplate locks = new LockTemplate(this.store);

	private final LockTemplate otherInstance = new LockTemplate(this.store);

	@AfterEach
	void destroy() {
		this.locks.destroy();
		this.otherInstance.destroy();
	}

	@Test
	void detachedLeaseHoldsTheSameLockAsAnAttachedOneAndIsNotKeptByTheTemplate() {
		Instant before = Instant.now();
		LockAttempt attempt = this.locks.tryAcquireDetached("order:1", LockOptions.ttl(Duration.ofSeconds(30)));
		DetachedLease lease = (DetachedLease) attempt.lease();
		assertThat(lease.ownerToken()).hasSize(22).matches("[A-Za-z0-9_-]+");
		assertThat(lease.fencingToken()).isPositive();
		// Its local deadline: the time-to-live less the loss margin (a tenth), from when
		// it
		// was sent
		assertThat(lease.expiresAt()).isBetween(before.plusSeconds(27).minusMillis(50),
				Instant.now().plusSeconds(27).plusMillis(50));
		assertThat(this.locks.getHeldLocks()).isEmpty();
		LockAttempt conflict = this.otherInstance.tryAcquire("order:1", Duration.ofSeconds(1));
		assertThat(conflict.isAcquired()).isFalse();
		assertThat(conflict.holderRemainingTtl()).isGreaterThan(Duration.ofSeconds(29));
		assertThat(this.otherInstance.timeToExpiry("order:1").toMillis()).isCloseTo(30_000, within(1_000L));
	}

	@Test
	void onlyTheOwnerTokenExtendsOrReleasesAndAWrongTokenChangesNothing() {
		DetachedLease lease = (DetachedLease) this.locks
			.tryAcquireDetached("order:2", LockOptions.ttl(Duration.ofSeconds(5)))
			.lease();
		assertThat(this.otherInstance.extendDetached("order:2", "not-the-token", Duration.ofMinutes(5))).isFalse();
		assertThat(this.otherInstance.releaseDetached("order:2", "not-the-token")).isFalse();
		assertThat(this.otherInstance.timeToExpiry("order:2")).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(5));
		assertThat(this.otherInstance.extendDetached("order:2", lease.ownerToken(), Duration.ofMinutes(5))).isTrue();
		assertThat(this.otherInstance.timeToExpiry("order:2")).isGreaterThan(Duration.ofMinutes(4));
		assertThat(this.otherInstance.releaseDetached("order:2", lease.ownerToken())).isTrue();
		assertThat(this.otherInstance.timeToExpiry("order:2")).isZero();
		assertThat(this.otherInstance.releaseDetached("order:2", lease.ownerToken())).isFalse();
		assertThat(this.otherInstance.extendDetached("order:2", lease.ownerToken(), Duration.ofSeconds(5))).isFalse();
		assertThat(this.otherInstance.timeToExpiry("order:2")).isZero();
	}

	@Test
	void aDetachedLeaseIsNotRenewedAndEndsWithItsTimeToLive() throws Exception {
		DetachedLease lease = (DetachedLease) this.locks
			.tryAcquireDetached("order:3", LockOptions.ttl(Duration.ofMillis(300)))
			.lease();
		Thread.sleep(450);
		assertThat(lease.isHeld()).isFalse();
		assertThat(this.locks.timeToExpiry("order:3")).isZero();
		assertThat(this.otherInstance.tryAcquire("order:3", Duration.ofSeconds(1)).isAcquired()).isTrue();
	}

	@Test
	void aWaiterIsWokenByTheReleaseOfADetachedLeaseOnAnotherInstance() throws Exception {
		DetachedLease lease = (DetachedLease) this.locks
			.tryAcquireDetached("order:4", LockOptions.ttl(Duration.ofSeconds(30)))
			.lease();
		AtomicReference<Thread> waiting = new AtomicReference<>();
		CompletableFuture<LockAttempt> waiter = CompletableFuture
			.supplyAsync(() -> this.otherInstance.tryAcquireDetached("order:4",
					LockOptions.ttl(Duration.ofSeconds(30)).withWaitTime(Duration.ofSeconds(10))), (task) -> {
						Thread thread = new Thread(task);
						waiting.set(thread);
						thread.start();
					});
		// The waiter pauses between its tries in a timed wait: it found the lock held
		await("the waiter waiting").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> waiting.get().getState() == Thread.State.TIMED_WAITING);
		assertThat(waiter).isNotDone();
		assertThat(this.otherInstance.releaseDetached("order:4", lease.ownerToken())).isTrue();
		DetachedLease next = (DetachedLease) waiter.get(5, TimeUnit.SECONDS).lease();
		assertThat(next.ownerToken()).isNotEqualTo(lease.ownerToken());
		assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
	}

	@Test
	void aDetachedLeaseStoresAResultWhileItsTokenHoldsTheLock() {
		DetachedLease lease = (DetachedLease) this.locks
			.tryAcquireDetached("order:6", LockOptions.ttl(Duration.ofSeconds(30)))
			.lease();
		assertThat(lease.putResult("done".getBytes(), Duration.ofMinutes(1))).isTrue();
		assertThat(this.otherInstance.results().orElseThrow().findResult("order:6"))
			.hasValueSatisfying((result) -> assertThat(new String(result)).isEqualTo("done"));
		assertThat(lease.release()).isTrue();
		assertThat(lease.putResult("late".getBytes(), Duration.ofMinutes(1))).isFalse();
		assertThatIllegalArgumentException().isThrownBy(() -> lease.putResult("x".getBytes(), Duration.ZERO));
	}

	@Test
	void holdBoundsDoNotApplyToADetachedLease() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.locks.tryAcquireDetached("order:5",
					LockOptions.ttl(Duration.ofSeconds(1)).withHoldAtLeast(Duration.ofMillis(500))))
			.withMessageContaining("minimum or maximum hold");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.locks.tryAcquireDetached("order:5",
					LockOptions.ttl(Duration.ofSeconds(1)).withMaxHold(Duration.ofSeconds(5))))
			.withMessageContaining("minimum or maximum hold");
		assertThat(this.locks.timeToExpiry("order:5")).isZero();
	}

}
