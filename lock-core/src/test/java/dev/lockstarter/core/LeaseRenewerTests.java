package dev.lockstarter.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

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
		awaitUntil("a renewal ran", () -> this.store.extendedLocks.get() >= 50);
		leases.forEach(Lease::release);
		assertThat(this.locks.renewer().activeLeases()).isZero();
		awaitUntil("the renewer stopped", () -> !this.locks.renewer().isScheduled());
		int calls = this.store.extendAllCalls.get();
		// Three renewal periods of the 300 ms leases: a renewal left behind would run
		Thread.sleep(300);
		assertThat(this.store.extendAllCalls.get()).isEqualTo(calls);
	}

	@Test
	void leasesDueTogetherAreExtendedInOneStoreCall() throws Exception {
		List<Lease> leases = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			leases.add(this.locks.acquire("k" + i, Duration.ofMillis(600)));
		}
		awaitUntil("two renewals of every lease", () -> this.store.extendedLocks.get() >= 40);
		assertThat(leases).allMatch(Lease::isHeld);
		assertThat(this.store.extendAllCalls.get()).isLessThanOrEqualTo(this.store.extendedLocks.get() / 10);
		leases.forEach(Lease::release);
	}

	@Test
	void aShortLeaseTakenAfterALongOneIsRenewedBeforeTheLongOneIsDue() throws Exception {
		// The timer is armed for the long lease (due after 10 s); the short one is due
		// after 100 ms and must re-arm it
		Lease long1 = this.locks.acquire("long", Duration.ofSeconds(30));
		Lease short1 = this.locks.acquire("short", Duration.ofMillis(300));
		// Within 5 s, before the long lease is due:
		// only the short one can have been renewed
		awaitUntil("two renewals of the short lease", () -> this.store.extendedLocks.get() >= 2, Duration.ofSeconds(5));
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
		awaitUntil("the lease expired", () -> !lease.isHeld());
		assertThat(this.store.extendAllCalls.get()).isZero();
		assertThat(lease.release()).isFalse();
	}

	private static void awaitUntil(String description, BooleanSupplier condition) throws InterruptedException {
		awaitUntil(description, condition, Duration.ofSeconds(10));
	}

	private static void awaitUntil(String description, BooleanSupplier condition, Duration within)
			throws InterruptedException {
		long deadline = System.nanoTime() + within.toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime() - deadline).as("%s within %s", description, within).isNegative();
			Thread.sleep(10);
		}
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
