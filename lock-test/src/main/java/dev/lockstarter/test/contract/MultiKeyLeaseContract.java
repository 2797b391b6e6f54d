package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.TemplateUnderTest.MultiKeyPath;

import static dev.lockstarter.test.contract.TemplateUnderTest.LONG_TTL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leases on several keys at once: one lease holds every key and one release frees them
 * all, a held key blocks the whole set and leaves nothing else held, a waiter takes the
 * set once every key is free, overlapping sets named in either order exclude each other
 * without deadlock, renewal keeps every key, the loss of one is reported, and every key
 * has an increasing fencing token (none for a store that declares no fencing tokens).
 * Each test runs on the store as it is and, for a store with the
 * {@link dev.lockstarter.store.MultiKeyLockStore} ability, once more through the
 * template's generic path (ordered acquisition with rollback), which every other store
 * takes.
 */
interface MultiKeyLeaseContract extends TemplateContract {

	@ParameterizedTest
	@EnumSource(MultiKeyPath.class)
	default void multiKeyLeaseHoldsEveryKeyAndOneReleaseFreesThemAll(MultiKeyPath path) {
		TemplateUnderTest fixture = templateUnderTest();
		LockStore store = fixture.store();
		LockTemplate locks = fixture.multiKeyLocks(path);
		List<String> keys = List.of(fixture.uniqueKey("multi-b"), fixture.uniqueKey("multi-a"),
				fixture.uniqueKey("multi-c"));
		Lease lease = locks.acquire(keys, LONG_TTL);
		assertThat(lease.keys()).containsExactlyInAnyOrderElementsOf(keys);
		assertThat(lease.isHeld()).isTrue();
		for (String key : keys) {
			assertThat(store.tryAcquire(fixture.storeKey(key), "intruder", LONG_TTL).isAcquired()).as("%s is held", key)
				.isFalse();
		}
		assertThat(lease.release()).isTrue();
		assertThat(lease.isHeld()).isFalse();
		for (String key : keys) {
			assertThat(store.tryAcquire(fixture.storeKey(key), "next", LONG_TTL).isAcquired()).as("%s is free", key)
				.isTrue();
		}
	}

	@ParameterizedTest
	@EnumSource(MultiKeyPath.class)
	default void heldKeyBlocksTheWholeSetAndNothingElseStaysHeld(MultiKeyPath path) {
		TemplateUnderTest fixture = templateUnderTest();
		LockStore store = fixture.store();
		LockTemplate locks = fixture.multiKeyLocks(path);
		String first = fixture.uniqueKey("blocked");
		String held = first + "-held";
		String last = held + "-z";
		Lease holder = fixture.locks().acquire(held, Duration.ofSeconds(10));
		LockAttempt attempt = locks.tryAcquire(List.of(last, held, first), LONG_TTL);
		assertThat(attempt.isAcquired()).isFalse();
		assertThat(attempt.heldKey()).isEqualTo(held);
		assertThat(attempt.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10));
		assertThat(store.tryAcquire(fixture.storeKey(first), "probe", LONG_TTL).isAcquired())
			.as("the key before the held one was rolled back")
			.isTrue();
		assertThat(store.tryAcquire(fixture.storeKey(last), "probe", LONG_TTL).isAcquired())
			.as("the key after the held one was not kept")
			.isTrue();
		assertThat(holder.isHeld()).isTrue();
		assertThat(holder.release()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(MultiKeyPath.class)
	default void multiKeyWaiterTakesTheWholeSetOnceEveryHolderReleases(MultiKeyPath path) throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		LockTemplate locks = fixture.multiKeyLocks(path);
		String a = fixture.uniqueKey("wait-a");
		String b = fixture.uniqueKey("wait-b");
		Lease holdsA = fixture.locks().acquire(a, LONG_TTL);
		Lease holdsB = fixture.locks().acquire(b, LONG_TTL);
		TokenRecordingStore recording = fixture.recording(locks);
		int refused = recording.refusals();
		Future<LockAttempt> waiter = fixture.executor()
			.submit(() -> locks.tryAcquire(List.of(b, a),
					LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofSeconds(10))));
		recording.awaitRefusals(refused + 1);
		assertThat(holdsB.release()).isTrue();
		// Woken or polling, the waiter tries again and finds the other key held
		recording.awaitRefusals(recording.refusals() + 1);
		assertThat(waiter).as("one key is still held").isNotDone();
		assertThat(holdsA.release()).isTrue();
		LockAttempt attempt = waiter.get(5, TimeUnit.SECONDS);
		assertThat(attempt.isAcquired()).isTrue();
		assertThat(attempt.lease().isHeld()).isTrue();
		assertThat(attempt.lease().release()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(MultiKeyPath.class)
	default void overlappingSetsInEitherOrderExcludeEachOtherWithoutDeadlock(MultiKeyPath path) {
		TemplateUnderTest fixture = templateUnderTest();
		LockStore store = fixture.store();
		LockTemplate locks = fixture.multiKeyLocks(path);
		String a = fixture.uniqueKey("order-a");
		String b = fixture.uniqueKey("order-b");
		String c = fixture.uniqueKey("order-c");
		LockOptions waiting = LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofSeconds(30));
		ExclusionChecker.Result result = new ExclusionChecker().threads(6)
			.attemptsPerThread(20)
			.holdTime(Duration.ofMillis(1))
			.timeout(Duration.ofSeconds(90))
			.checkSets(List.of(List.of(a, b), List.of(b, a), List.of(a, c), List.of(c, a), List.of(b)), (set) -> {
				LockAttempt attempt = locks.tryAcquire(set, waiting);
				return attempt.isAcquired() ? attempt.lease()::release : null;
			});
		assertThat(result.failures()).as(result.toString()).isEmpty();
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.overlaps()).as(result.toString()).isZero();
		assertThat(result.rejections()).as("every waiter got its set within its wait, so none deadlocked: " + result)
			.isZero();
		for (String key : List.of(a, b, c)) {
			assertThat(store.tryAcquire(fixture.storeKey(key), "probe", LONG_TTL).isAcquired())
				.as("%s is free after the check", key)
				.isTrue();
		}
	}

	@ParameterizedTest
	@EnumSource(MultiKeyPath.class)
	default void renewalKeepsEveryKeyOfAMultiKeyLease(MultiKeyPath path) throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		LockStore store = fixture.store();
		LockTemplate locks = fixture.multiKeyLocks(path);
		// On the generic path every key is renewed alone, each renewal a read and a write
		// that a quorum store (ZooKeeper, etcd) syncs to disk. A renewal late by more
		// than the TTL less the renewal interval loses the lease, as it should: 2 s
		// leaves about 1.3 s (1 s left 650 ms), for a two-core machine running two builds
		// at once. Twice the TTL shows the lease outliving it.
		Duration ttl = Duration.ofSeconds(2);
		List<String> keys = List.of(fixture.uniqueKey("renew-a"), fixture.uniqueKey("renew-b"));
		Lease lease = locks.acquire(keys, LockOptions.ttl(ttl));
		long end = System.nanoTime() + ttl.multipliedBy(2).toNanos();
		while (System.nanoTime() - end < 0) {
			for (String key : keys) {
				assertThat(store.tryAcquire(fixture.storeKey(key), "intruder", ttl).isAcquired())
					.as("%s was taken while its lease renews it", key)
					.isFalse();
			}
			assertThat(lease.isHeld()).isTrue();
			Thread.sleep(40);
		}
		assertThat(lease.release()).isTrue();
		assertThat(fixture.lostEvents()).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(MultiKeyPath.class)
	default void lossOfOneKeyOfAMultiKeyLeaseIsReportedAndItsReleaseFreesTheOthers(MultiKeyPath path) throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		LockStore store = fixture.store();
		LockTemplate locks = fixture.multiKeyLocks(path);
		Duration ttl = Duration.ofMillis(600);
		String a = fixture.uniqueKey("lost-a");
		String b = fixture.uniqueKey("lost-b");
		Lease lease = locks.acquire(List.of(a, b), LockOptions.ttl(ttl));
		// b vanishes behind the lease's back, and another owner takes it
		assertThat(store.release(fixture.storeKey(b), fixture.ownerToken(locks, b))).isTrue();
		assertThat(store.tryAcquire(fixture.storeKey(b), "new-owner", LONG_TTL).isAcquired()).isTrue();
		await("the loss of " + b).atMost(Duration.ofSeconds(5))
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(20))
			.until(() -> !lease.isHeld() && !fixture.lostEvents().isEmpty());
		assertThat(lease.isHeld()).isFalse();
		assertThat(fixture.lostEvents()).singleElement().satisfies((event) -> assertThat(event.key()).isEqualTo(b));
		assertThat(lease.release()).as("not every key was still owned").isFalse();
		assertThat(store.tryAcquire(fixture.storeKey(a), "probe", LONG_TTL).isAcquired()).as("a was released").isTrue();
		assertThat(store.release(fixture.storeKey(b), "new-owner")).as("b of the new owner is untouched").isTrue();
	}

	@ParameterizedTest
	@EnumSource(MultiKeyPath.class)
	default void everyKeyOfAMultiKeyLeaseHasAnIncreasingFencingToken(MultiKeyPath path) {
		TemplateUnderTest fixture = templateUnderTest();
		LockTemplate locks = fixture.multiKeyLocks(path);
		String a = fixture.uniqueKey("fence-a");
		String b = fixture.uniqueKey("fence-b");
		long before;
		try (Lease single = fixture.locks().acquire(a, LONG_TTL)) {
			before = single.fencingToken();
		}
		long afterMulti;
		try (Lease lease = locks.acquire(List.of(a, b), LONG_TTL)) {
			afterMulti = lease.fencingToken(a);
			if (!fixture.fencing()
				.check("fencing tokens of a lease on a, then of a lease on a and b",
						List.of(before, afterMulti, lease.fencingToken(b)))) {
				return;
			}
			assertThat(afterMulti).isGreaterThan(before);
		}
		try (Lease single = fixture.locks().acquire(a, LONG_TTL)) {
			assertThat(single.fencingToken()).isGreaterThan(afterMulti);
		}
	}

}
