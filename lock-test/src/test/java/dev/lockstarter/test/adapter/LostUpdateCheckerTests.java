package dev.lockstarter.test.adapter;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LostUpdateChecker}, including its negative controls: a lock that does
 * not exclude, and one that excludes only the threads of one instance, must be reported.
 */
class LostUpdateCheckerTests {

	private static final List<String> KEYS = List.of("a", "b");

	@Test
	void lockSharedByEveryInstanceLosesNoUpdate() {
		Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();
		LostUpdateChecker.Locker shared = (key) -> {
			ReentrantLock lock = locks.computeIfAbsent(key, (k) -> new ReentrantLock());
			return lock.tryLock() ? lock::unlock : null;
		};
		LostUpdateChecker.Result result = new LostUpdateChecker().check(KEYS, List.of(shared, shared));
		assertThat(result.isConsistent()).as(result.toString()).isTrue();
		assertThat(result.sections()).isEqualTo(8 * 25);
		assertThat(result.total()).isEqualTo(8 * 25);
	}

	@Test
	void lockThatGrantsEveryAttemptIsReportedWithLostUpdatesAndOverlaps() {
		LostUpdateChecker.Locker permissive = (key) -> () -> {
		};
		LostUpdateChecker.Result result = new LostUpdateChecker().check(KEYS, List.of(permissive, permissive));
		assertThat(result.failures()).isEmpty();
		assertThat(result.lostUpdates()).as(result.toString()).isPositive();
		assertThat(result.overlaps()).as(result.toString()).isPositive();
		assertThat(result.isConsistent()).isFalse();
	}

	@Test
	void lockThatExcludesOnlyTheThreadsOfOneInstanceIsReported() {
		LostUpdateChecker.Result result = new LostUpdateChecker().sectionTime(Duration.ofMillis(2))
			.check(KEYS, List.of(localLock(), localLock()));
		assertThat(result.failures()).isEmpty();
		assertThat(result.lostUpdates()).as(result.toString()).isPositive();
		assertThat(result.overlaps()).as(result.toString()).isPositive();
	}

	@Test
	void failingReleaseIsReported() {
		LostUpdateChecker.Locker failing = (key) -> () -> {
			throw new IllegalMonitorStateException("not the holder");
		};
		LostUpdateChecker.Result result = new LostUpdateChecker().threads(2).check(KEYS, List.of(failing));
		assertThat(result.failures()).hasSize(2).allMatch(IllegalMonitorStateException.class::isInstance);
		assertThat(result.isConsistent()).isFalse();
	}

	private static LostUpdateChecker.Locker localLock() {
		Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();
		return (key) -> {
			ReentrantLock lock = locks.computeIfAbsent(key, (k) -> new ReentrantLock());
			return lock.tryLock() ? lock::unlock : null;
		};
	}

}
