package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.FlawedLockStore.Flaw;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ExclusionChecker}, including the negative control: a lock that does
 * not exclude must be reported.
 */
class ExclusionCheckerTests {

	private static final List<String> KEYS = List.of("a", "b");

	@Test
	void correctLockHasNoViolationsOrOverlaps() {
		Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();
		ExclusionChecker.Result result = new ExclusionChecker().check(KEYS, (key) -> {
			ReentrantLock lock = locks.computeIfAbsent(key, (k) -> new ReentrantLock());
			return lock.tryLock() ? lock::unlock : null;
		});
		assertThat(result.isExclusive()).as(result.toString()).isTrue();
		assertThat(result.attempts()).isEqualTo(8 * 200);
		assertThat(result.acquisitions()).as(result.toString()).isPositive();
	}

	@Test
	void checkThenSetLockIsReportedWithOverlapsAndViolations() {
		LockStore store = new FlawedLockStore(Flaw.CHECK_THEN_SET);
		ExclusionChecker.Result result = new ExclusionChecker().threads(8)
			.attemptsPerThread(20)
			.holdTime(Duration.ofMillis(2))
			.check(List.of("only-key"), storeLocker(store));
		assertThat(result.failures()).isEmpty();
		assertThat(result.overlaps()).as(result.toString()).isPositive();
		assertThat(result.violations()).as(result.toString()).isPositive();
		assertThat(result.isExclusive()).isFalse();
	}

	@Test
	void lockThatGrantsEveryAttemptIsReported() {
		ExclusionChecker.Result result = new ExclusionChecker().holdTime(Duration.ofMillis(1))
			.attemptsPerThread(20)
			.check(KEYS, (key) -> () -> {
			});
		assertThat(result.acquisitions()).isEqualTo(result.attempts());
		assertThat(result.overlaps()).as(result.toString()).isPositive();
		assertThat(result.isExclusive()).isFalse();
	}

	@Test
	void setsThatLockEveryKeyHaveNoOverlaps() {
		Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();
		ExclusionChecker.Result result = new ExclusionChecker().attemptsPerThread(100)
			.checkSets(List.of(List.of("a", "b"), List.of("b", "a"), List.of("b", "c")), (set) -> {
				List<ReentrantLock> taken = new ArrayList<>();
				for (String key : set.stream().sorted().toList()) {
					ReentrantLock lock = locks.computeIfAbsent(key, (k) -> new ReentrantLock());
					if (!lock.tryLock()) {
						taken.forEach(ReentrantLock::unlock);
						return null;
					}
					taken.add(lock);
				}
				return () -> taken.forEach(ReentrantLock::unlock);
			});
		assertThat(result.isExclusive()).as(result.toString()).isTrue();
		assertThat(result.acquisitions()).as(result.toString()).isPositive();
	}

	@Test
	void setLockThatTakesOnlyItsFirstKeyIsReported() {
		Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();
		ExclusionChecker.Result result = new ExclusionChecker().holdTime(Duration.ofMillis(1))
			.attemptsPerThread(50)
			.checkSets(List.of(List.of("a", "b"), List.of("b", "a")), (set) -> {
				ReentrantLock lock = locks.computeIfAbsent(set.get(0), (k) -> new ReentrantLock());
				return lock.tryLock() ? lock::unlock : null;
			});
		assertThat(result.overlaps()).as(result.toString()).isPositive();
		assertThat(result.isExclusive()).isFalse();
	}

	@Test
	void failuresOfTheLockAreRecorded() {
		IllegalStateException failure = new IllegalStateException("store unreachable");
		ExclusionChecker.Result result = new ExclusionChecker().threads(2).check(KEYS, (key) -> {
			throw failure;
		});
		assertThat(result.failures()).containsExactly(failure, failure);
		assertThat(result.isExclusive()).isFalse();
		assertThat(result.toString()).contains("store unreachable");
	}

	private static ExclusionChecker.Locker storeLocker(LockStore store) {
		return (key) -> {
			String token = UUID.randomUUID().toString();
			return store.tryAcquire(key, token, Duration.ofSeconds(30)).isAcquired() ? () -> store.release(key, token)
					: null;
		};
	}

}
