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
		for (int i = 0; i < 50; i++) {
			leases.add(this.locks.acquire("k" + i, Duration.ofMillis(300)));
		}
		assertThat(this.locks.renewer().activeLeases()).isEqualTo(50);
		assertThat(this.locks.renewer().isScheduled()).isTrue();
		Thread.sleep(250);
		leases.forEach(Lease::release);
		assertThat(this.locks.renewer().activeLeases()).isZero();
		Thread.sleep(300);
		assertThat(this.locks.renewer().isScheduled()).isFalse();
		int calls = this.store.extendAllCalls.get();
		Thread.sleep(300);
		assertThat(this.store.extendAllCalls.get()).isEqualTo(calls);
	}

	@Test
	void leasesDueTogetherAreExtendedInOneStoreCall() throws Exception {
		List<Lease> leases = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			leases.add(this.locks.acquire("k" + i, Duration.ofMillis(600)));
		}
		Thread.sleep(700);
		assertThat(leases).allMatch(Lease::isHeld);
		assertThat(this.store.extendedLocks.get()).isGreaterThanOrEqualTo(40);
		assertThat(this.store.extendAllCalls.get()).isLessThanOrEqualTo(this.store.extendedLocks.get() / 10);
		leases.forEach(Lease::release);
	}

	@Test
	void aShortLeaseTakenAfterALongOneIsRenewedBeforeTheLongOneIsDue() throws Exception {
		// The timer is armed for the long lease (due after 10 s); the short one is due
		// after 100 ms and must re-arm it
		Lease long1 = this.locks.acquire("long", Duration.ofSeconds(30));
		Lease short1 = this.locks.acquire("short", Duration.ofMillis(300));
		Thread.sleep(700);
		assertThat(short1.isHeld()).isTrue();
		assertThat(this.store.extendedLocks.get()).isGreaterThanOrEqualTo(2);
		assertThat(this.locks.renewer().activeLeases()).isEqualTo(2);
		short1.release();
		long1.release();
		assertThat(this.locks.renewer().activeLeases()).isZero();
	}

	@Test
	void leaseWithoutRenewalIsNeverExtended() throws Exception {
		Lease lease = this.locks.acquire("k", LockOptions.ttl(Duration.ofMillis(200)).withRenewal(false));
		assertThat(this.locks.renewer().activeLeases()).isZero();
		Thread.sleep(300);
		assertThat(lease.isHeld()).isFalse();
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
