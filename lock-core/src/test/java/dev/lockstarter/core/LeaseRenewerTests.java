package dev.lockstarter.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LeaseRenewer} through {@link LockTemplate}, on the in-memory store.
 */
class LeaseRenewerTests {

	private final CountingStore store = new CountingStore();

	private final LockTemplate locks = new LockTemplate(this.store, "t:");

	@AfterEach
	void destroy() {
		this.locks.destroy();
	}

	@Test
	void releasingTheLastLeaseLeavesNoRenewalBehind() throws Exception {
		List<Lease> leases = new ArrayList<>();
		// One second, so that a renewal held up by a busy machine still finds its lock
		for (int i = 0; i < 50; i++) {
			leases.add(this.locks.acquire("k" + i, Duration.ofSeconds(1)));
		}
		assertThat(this.locks.renewer().activeLeases()).isEqualTo(50);
		assertThat(this.locks.renewer().isScheduled()).isTrue();
		await("a renewal ran").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.store.extendedLocks.get() >= 50);
		leases.forEach(Lease::release);
		assertThat(this.locks.renewer().activeLeases()).isZero();
		await("the renewer stopped").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> !this.locks.renewer().isScheduled());
		int calls = this.store.extendAllCalls.get();
		// Three renewal periods of the 1 s leases: a renewal left behind would run
		await("no renewal left behind").during(Duration.ofSeconds(1))
			.atMost(Duration.ofSeconds(2))
			.until(() -> this.store.extendAllCalls.get() == calls);
	}

	@Test
	void leasesDueTogetherAreExtendedInOneStoreCall() throws Exception {
		List<Lease> leases = new ArrayList<>();
		// Two seconds, so that a renewal held up by a busy machine still finds its lock
		for (int i = 0; i < 20; i++) {
			leases.add(this.locks.acquire("k" + i, Duration.ofSeconds(2)));
		}
		await("two renewals of every lease").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.store.extendedLocks.get() >= 40);
		assertThat(leases).allMatch(Lease::isHeld);
		assertThat(this.store.extendAllCalls.get()).isLessThanOrEqualTo(this.store.extendedLocks.get() / 10);
		leases.forEach(Lease::release);
	}

	@Test
	void aShortLeaseTakenAfterALongOneIsRenewedBeforeTheLongOneIsDue() throws Exception {
		// The timer is armed for the long lease (due after 10 s); the short one is due
		// after a third of a second and must re-arm it
		Lease long1 = this.locks.acquire("long", Duration.ofSeconds(30));
		Lease short1 = this.locks.acquire("short", Duration.ofSeconds(1));
		// Within 5 s, before the long lease is due:
		// only the short one can have been renewed
		await("two renewals of the short lease").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.store.extendedLocks.get() >= 2);
		assertThat(short1.isHeld()).isTrue();
		assertThat(this.locks.renewer().activeLeases()).isEqualTo(2);
		short1.release();
		long1.release();
		assertThat(this.locks.renewer().activeLeases()).isZero();
	}

	@Test
	void leaseWithoutRenewalIsNeverExtended() throws Exception {
		Lease lease = this.locks.acquire("k", LockOptions.ttl(Duration.ofMillis(200)).withRenewal(false));
		assertThat(this.locks.renewer().activeLeases()).isZero();
		await("the lease expired").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> !lease.isHeld());
		assertThat(this.store.extendAllCalls.get()).isZero();
		assertThat(lease.release()).isFalse();
	}

	private static final class CountingStore extends InMemoryLockStore implements LockStore {

		final AtomicInteger extendAllCalls = new AtomicInteger();

		final AtomicInteger extendedLocks = new AtomicInteger();

		@Override
		public boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl) {
			this.extendAllCalls.incrementAndGet();
			this.extendedLocks.addAndGet(keys.size());
			return super.extendAll(keys, tokens, ttl);
		}

	}

}
