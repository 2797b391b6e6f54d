package dev.lockstarter.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for permits and read/write locks through {@link LockTemplate} and
 * {@link ReactiveLockTemplate}, on the in-memory store: leases, renewal and release of a
 * place go through the store's shared locks, never its mutexes.
 */
class SharedLockKindsTests {

	private static final LockOptions TTL = LockOptions.ttl(Duration.ofSeconds(10));

	private final InMemoryLockStore store = new InMemoryLockStore();

	private final LockTemplate locks = new LockTemplate(this.store, "app:");

	@Test
	void permitsAdmitThatManyHoldersAndARefusalReportsTheEarliestExpiry() {
		LockOptions three = TTL.withKind(LockKind.permits(3));
		List<Lease> held = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			LockAttempt attempt = this.locks.tryAcquire("export:tenant-1", three);
			assertThat(attempt.isAcquired()).isTrue();
			held.add(attempt.lease());
		}
		assertThat(held).extracting(Lease::fencingToken).doesNotHaveDuplicates().isSorted();
		LockAttempt fourth = this.locks.tryAcquire("export:tenant-1", three);
		assertThat(fourth.isAcquired()).isFalse();
		assertThat(fourth.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10));
		assertThat(this.locks.getHeldLocks()).hasSize(3);
		assertThat(held.get(1).release()).isTrue();
		assertThat(this.locks.tryAcquire("export:tenant-1", three).isAcquired()).isTrue();
	}

	@Test
	void aPlaceIsNotTheMutexOfItsKey() {
		try (Lease permit = this.locks.acquire("report", TTL.withKind(LockKind.permits(2)))) {
			assertThat(permit.isHeld()).isTrue();
			assertThat(this.locks.tryAcquire("report", TTL).isAcquired()).isTrue();
		}
	}

	@Test
	void readersShareAndAWriterExcludesEveryone() {
		Lease first = this.locks.acquire("doc", TTL.withKind(LockKind.READ));
		Lease second = this.locks.acquire("doc", TTL.withKind(LockKind.READ));
		assertThat(this.locks.tryAcquire("doc", TTL.withKind(LockKind.WRITE)).isAcquired()).isFalse();
		first.release();
		second.release();
		try (Lease writer = this.locks.acquire("doc", TTL.withKind(LockKind.WRITE))) {
			assertThat(writer.isHeld()).isTrue();
			assertThat(this.locks.tryAcquire("doc", TTL.withKind(LockKind.READ)).isAcquired()).isFalse();
			assertThat(this.locks.tryAcquire("doc", TTL.withKind(LockKind.WRITE)).isAcquired()).isFalse();
		}
		assertThat(this.locks.tryAcquire("doc", TTL.withKind(LockKind.READ)).isAcquired()).isTrue();
	}

	@Test
	void aWaitingWriterHoldsBackNewReadersAndEntersWhenTheReadersLeave() throws Exception {
		Lease reader = this.locks.acquire("doc", TTL.withKind(LockKind.READ));
		CompletableFuture<Lease> writer = CompletableFuture.supplyAsync(
				() -> this.locks.acquire("doc", TTL.withKind(LockKind.WRITE).withWaitTime(Duration.ofSeconds(10))));
		// Until the writer's refusal is recorded, a reader may still enter: wait for it
		awaitRead(false);
		assertThat(writer).isNotDone();
		reader.release();
		Lease written = writer.get(10, TimeUnit.SECONDS);
		assertThat(written.isHeld()).isTrue();
		written.release();
		assertThat(this.locks.tryAcquire("doc", TTL.withKind(LockKind.READ)).isAcquired()).isTrue();
	}

	@Test
	void aWriterThatStopsWaitingLetsReadersInAgain() throws Exception {
		Lease reader = this.locks.acquire("doc", TTL.withKind(LockKind.READ));
		Thread writer = new Thread(() -> {
			try {
				this.locks.acquire("doc", TTL.withKind(LockKind.WRITE).withWaitTime(Duration.ofSeconds(60)));
			}
			catch (LockWaitInterruptedException ex) {
				// Expected: the writer gives up
			}
		});
		writer.start();
		awaitRead(false);
		writer.interrupt();
		writer.join(TimeUnit.SECONDS.toMillis(10));
		// Within seconds, not at the end of the writer's minute
		awaitRead(true);
		reader.release();
	}

	@Test
	void aWaitingWriterRecordsItsWaitAnewSoReadersStayOutPastItsTimeToLive() throws Exception {
		Lease reader = this.locks.acquire("doc", TTL.withKind(LockKind.READ));
		// The store keeps a writer's wait for at most its TTL: the writer must ask again
		// within it, though its polls would otherwise grow to a second
		LockOptions writing = LockOptions.ttl(Duration.ofMillis(300))
			.withKind(LockKind.WRITE)
			.withWaitTime(Duration.ofSeconds(60));
		Thread writer = new Thread(() -> {
			try {
				this.locks.acquire("doc", writing);
			}
			catch (LockWaitInterruptedException ex) {
				// Expected: the writer gives up
			}
		});
		writer.start();
		awaitRead(false);
		// Ten of the writer's TTLs
		await("no new reader while the writer waits").during(Duration.ofSeconds(3))
			.atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> {
				LockAttempt probe = this.locks.tryAcquire("doc", TTL.withKind(LockKind.READ));
				if (probe.isAcquired()) {
					probe.lease().release();
				}
				return !probe.isAcquired();
			});
		writer.interrupt();
		writer.join(TimeUnit.SECONDS.toMillis(10));
		awaitRead(true);
		reader.release();
	}

	private void awaitRead(boolean granted) {
		await("a reader " + (granted ? "granted" : "refused")).atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> {
				LockAttempt probe = this.locks.tryAcquire("doc", TTL.withKind(LockKind.READ));
				if (probe.isAcquired()) {
					probe.lease().release();
				}
				return probe.isAcquired() == granted;
			});
	}

	@Test
	void aWriterThatDoesNotWaitHoldsNoReaderBack() {
		try (Lease reader = this.locks.acquire("doc", TTL.withKind(LockKind.READ))) {
			assertThat(this.locks.tryAcquire("doc", TTL.withKind(LockKind.WRITE)).isAcquired()).isFalse();
			assertThat(this.locks.tryAcquire("doc", TTL.withKind(LockKind.READ)).isAcquired()).isTrue();
		}
	}

	@Test
	void aPlaceIsRenewedAndExtendedThroughTheSharedLocks() {
		LockOptions shortLived = LockOptions.ttl(Duration.ofMillis(300)).withKind(LockKind.permits(1 + 1));
		try (Lease lease = this.locks.acquire("renewed", shortLived)) {
			assertThat(lease.extend(Duration.ofSeconds(5))).isTrue();
			assertThat(this.store.sharedTimeToExpiry("app:renewed")).isGreaterThan(Duration.ofSeconds(4));
		}
		assertThat(this.store.sharedTimeToExpiry("app:renewed")).isZero();
	}

	@Test
	void aReactivePlaceIsTakenAndReleasedThroughTheSharedLocks() {
		ReactiveLockTemplate reactive = new ReactiveLockTemplate(this.locks);
		LockOptions one = TTL.withKind(LockKind.permits(2));
		List<Boolean> acquired = reactive
			.execute("reactive", one,
					(lease) -> reactive.tryAcquire("reactive", one)
						.flatMap((second) -> reactive.tryAcquire("reactive", one)
							.map((third) -> List.of(lease.isHeld(), second.isAcquired(), third.isAcquired()))))
			.blockFirst(Duration.ofSeconds(10));
		assertThat(acquired).containsExactly(true, true, false);
		assertThat(this.store.sharedTimeToExpiry("app:reactive")).as("the second place, never released").isPositive();
	}

	@Test
	void aSharedKindTakesOneKeyAndNeedsAStoreThatKeepsIt() {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> this.locks.tryAcquire(List.of("a", "b"), TTL.withKind(LockKind.READ)));
		assertThat(this.locks.supports(LockKind.WRITE)).isTrue();
		LockTemplate mutexOnly = new LockTemplate(new MultiKeyLockTests.CallRecordingStore(this.store), "app:");
		assertThat(mutexOnly.supports(LockKind.MUTEX)).isTrue();
		assertThat(mutexOnly.supports(LockKind.permits(2))).isFalse();
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> mutexOnly.tryAcquire("a", TTL.withKind(LockKind.permits(2))))
			.withMessageContaining("CallRecordingStore");
	}

}
