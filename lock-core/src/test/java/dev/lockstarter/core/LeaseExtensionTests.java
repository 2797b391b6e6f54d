package dev.lockstarter.core;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link Lease#extend(Duration, Duration)} on the in-memory store.
 */
class LeaseExtensionTests {

	private final InMemoryLockStore store = new InMemoryLockStore();

	private final LockTemplate locks = new LockTemplate(this.store);

	private final LockTemplate otherInstance = new LockTemplate(this.store);

	@AfterEach
	void destroy() {
		this.locks.destroy();
		this.otherInstance.destroy();
	}

	@Test
	void extensionResetsTheTimeToLiveInTheStore() {
		Lease lease = this.locks.acquire("k", LockOptions.ttl(Duration.ofMillis(500)).withRenewal(false));
		assertThat(lease.extend(Duration.ofMinutes(1))).isTrue();
		assertThat(this.otherInstance.timeToExpiry("k")).isGreaterThan(Duration.ofSeconds(50));
		assertThat(lease.release()).isTrue();
	}

	@Test
	void extensionOfALockTakenOverAnswersFalseAndReportsTheLeaseLost() throws InterruptedException {
		Lease lease = this.locks.acquire("k", LockOptions.ttl(Duration.ofMillis(100)).withRenewal(false));
		await("the lock expired and was taken").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.otherInstance.tryAcquire("k", Duration.ofMinutes(1)).isAcquired());
		assertThat(lease.extend(Duration.ofMinutes(1))).isFalse();
		assertThat(lease.isHeld()).isFalse();
		assertThat(this.otherInstance.timeToExpiry("k")).isGreaterThan(Duration.ofSeconds(50));
	}

	@Test
	void extensionOfAReleasedLeaseChangesNothing() {
		Lease lease = this.locks.acquire("k", Duration.ofMinutes(1));
		lease.release();
		Lease next = this.otherInstance.acquire("k", Duration.ofSeconds(30));
		assertThat(lease.extend(Duration.ofMinutes(5))).isFalse();
		assertThat(this.otherInstance.timeToExpiry("k")).isLessThanOrEqualTo(Duration.ofSeconds(30));
		next.release();
	}

	@Test
	void minimumHoldOfAnExtensionKeepsTheLockAtRelease() {
		Lease lease = this.locks.acquire("k", LockOptions.ttl(Duration.ofMinutes(1)).withRenewal(false));
		assertThat(lease.extend(Duration.ofMinutes(1), Duration.ofSeconds(20))).isTrue();
		assertThat(lease.release()).isTrue();
		assertThat(this.otherInstance.tryAcquire("k", Duration.ofMinutes(1)).isAcquired()).isFalse();
		assertThat(this.otherInstance.timeToExpiry("k")).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(20));
	}

	@Test
	void extensionNeverShortensTheMinimumHoldOfTheOptions() {
		Lease lease = this.locks.acquire("k",
				LockOptions.ttl(Duration.ofMinutes(1)).withRenewal(false).withHoldAtLeast(Duration.ofSeconds(40)));
		assertThat(lease.extend(Duration.ofMinutes(1), Duration.ofSeconds(5))).isTrue();
		lease.release();
		assertThat(this.otherInstance.timeToExpiry("k")).isGreaterThan(Duration.ofSeconds(30));
	}

	@Test
	void shorterExtensionOfARenewedLeaseIsRenewedBeforeItEnds() throws InterruptedException {
		// Renewed every 10 s for its own 30 s; extended to 300 ms, it must be renewed
		// within those 300 ms, not 10 s later
		Lease lease = this.locks.acquire("k", Duration.ofSeconds(30));
		assertThat(lease.extend(Duration.ofMillis(300))).isTrue();
		await("a renewal back to the lease's own time-to-live").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.otherInstance.timeToExpiry("k").compareTo(Duration.ofSeconds(20)) > 0);
		assertThat(lease.isHeld()).isTrue();
		lease.release();
	}

	@Test
	void leaseOnSeveralKeysExtendsEach() {
		Lease lease = this.locks.acquire(List.of("a", "b"), LockOptions.ttl(Duration.ofSeconds(1)).withRenewal(false));
		assertThat(lease.extend(Duration.ofMinutes(1))).isTrue();
		assertThat(this.otherInstance.timeToExpiry("a")).isGreaterThan(Duration.ofSeconds(50));
		assertThat(this.otherInstance.timeToExpiry("b")).isGreaterThan(Duration.ofSeconds(50));
		lease.release();
	}

	@Test
	void detachedLeaseIsExtendedButTakesNoMinimumHold() {
		DetachedLease lease = (DetachedLease) this.locks
			.tryAcquireDetached("k", LockOptions.ttl(Duration.ofSeconds(1)).withRenewal(false))
			.lease();
		assertThat(lease.extend(Duration.ofMinutes(1))).isTrue();
		assertThat(this.otherInstance.timeToExpiry("k")).isGreaterThan(Duration.ofSeconds(50));
		assertThat(lease.expiresAt()).isAfter(java.time.Instant.now().plusSeconds(50));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> lease.extend(Duration.ofMinutes(1), Duration.ofSeconds(1)))
			.withMessageContaining("holdAtLeast");
	}

	@Test
	void minimumHoldLongerThanTheTimeToLiveIsRefused() {
		Lease lease = this.locks.acquire("k", Duration.ofMinutes(1));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> lease.extend(Duration.ofSeconds(1), Duration.ofSeconds(2)))
			.withMessageContaining("holdAtLeast");
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(Duration.ZERO)).withMessageContaining("ttl");
		lease.release();
	}

}
