package dev.lockstarter.store.memory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.LockStoreException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link InMemoryLockStore} on a controlled clock: expiry and the reclaiming of
 * expired entries. Its lock semantics are covered by the contract suite in
 * {@code lock-test}.
 */
class InMemoryLockStoreTests {

	private static final Duration SWEEP_INTERVAL = Duration.ofMillis(InMemoryLockStore.SWEEP_INTERVAL_MILLIS);

	private final AtomicLong nanos = new AtomicLong(123_456_789L);

	private final InMemoryLockStore store = new InMemoryLockStore(this.nanos::get);

	@Test
	void expiredEntriesAreReclaimedOnceTheSweepIntervalPasses() {
		for (int i = 0; i < 1000; i++) {
			assertThat(this.store.tryAcquire("key-" + i, "token", Duration.ofMillis(100)).isAcquired()).isTrue();
		}
		assertThat(this.store.size()).isEqualTo(1000);
		advance(SWEEP_INTERVAL.plusMillis(1));
		assertThat(this.store.tryAcquire("other", "token", Duration.ofMillis(100)).isAcquired()).isTrue();
		assertThat(this.store.size()).isOne();
	}

	@Test
	void sweepRunsAtMostOncePerInterval() {
		advance(SWEEP_INTERVAL);
		this.store.tryAcquire("first", "token", Duration.ofMillis(10));
		advance(Duration.ofMillis(20));
		this.store.tryAcquire("second", "token", Duration.ofMillis(10));
		assertThat(this.store.size()).as("entries before the next sweep is due").isEqualTo(2);
		advance(SWEEP_INTERVAL);
		this.store.tryAcquire("third", "token", Duration.ofMillis(10));
		assertThat(this.store.size()).isOne();
	}

	@Test
	void sweepKeepsLocksThatHaveNotExpired() {
		assertThat(this.store.tryAcquire("live", "owner", Duration.ofMinutes(1)).isAcquired()).isTrue();
		this.store.tryAcquire("expiring", "owner", Duration.ofMillis(1));
		advance(SWEEP_INTERVAL.plusMillis(1));
		this.store.tryAcquire("trigger", "owner", Duration.ofMillis(1));
		assertThat(this.store.size()).isEqualTo(2);
		assertThat(this.store.tryAcquire("live", "other", Duration.ofMinutes(1)).isAcquired()).isFalse();
		assertThat(this.store.release("live", "owner")).isTrue();
	}

	@Test
	void mapDoesNotGrowWithoutBoundWhenManyKeysAreLockedAndAbandoned() {
		int maxSize = 0;
		for (int i = 0; i < 100_000; i++) {
			this.store.tryAcquire("key-" + i, "token", Duration.ofMillis(50));
			advance(Duration.ofMillis(1));
			maxSize = Math.max(maxSize, this.store.size());
		}
		// At most the keys locked during one sweep interval, plus those still live at a
		// sweep
		assertThat(maxSize).isLessThanOrEqualTo((int) (SWEEP_INTERVAL.toMillis() + 50 + 1));
	}

	@Test
	void acquisitionReplacesAnExpiredEntry() {
		this.store.tryAcquire("key", "first", Duration.ofMillis(100));
		advance(Duration.ofMillis(100));
		assertThat(this.store.tryAcquire("key", "second", Duration.ofMillis(100)).isAcquired()).isTrue();
		assertThat(this.store.size()).isOne();
		assertThat(this.store.release("key", "first")).isFalse();
		assertThat(this.store.release("key", "second")).isTrue();
		assertThat(this.store.size()).isZero();
	}

	@Test
	void releaseOrExtendOfAnExpiredEntryRemovesIt() {
		this.store.tryAcquire("released", "owner", Duration.ofMillis(100));
		this.store.tryAcquire("extended", "owner", Duration.ofMillis(100));
		advance(Duration.ofMillis(100));
		assertThat(this.store.release("released", "owner")).isFalse();
		assertThat(this.store.extend("extended", "owner", Duration.ofMinutes(1))).isFalse();
		assertThat(this.store.size()).isZero();
	}

	@Test
	void lockExpiresExactlyWhenItsTimeToLivePasses() {
		this.store.tryAcquire("key", "owner", Duration.ofMillis(100));
		advance(Duration.ofNanos(Duration.ofMillis(100).toNanos() - 1));
		assertThat(this.store.tryAcquire("key", "other", Duration.ofMillis(100)).holderRemainingTtl())
			.isEqualTo(Duration.ofNanos(1));
		advance(Duration.ofNanos(1));
		assertThat(this.store.tryAcquire("key", "other", Duration.ofMillis(100)).isAcquired()).isTrue();
	}

	@Test
	void expiryWorksWhenTheNanoClockOverflows() {
		this.nanos.set(Long.MAX_VALUE - Duration.ofMillis(500).toNanos());
		InMemoryLockStore store = new InMemoryLockStore(this.nanos::get);
		assertThat(store.tryAcquire("key", "owner", Duration.ofSeconds(1)).isAcquired()).isTrue();
		advance(Duration.ofMillis(600));
		assertThat(this.nanos.get()).isNegative();
		assertThat(store.tryAcquire("key", "other", Duration.ofSeconds(1)).holderRemainingTtl())
			.isEqualTo(Duration.ofMillis(400));
		advance(Duration.ofMillis(400));
		assertThat(store.tryAcquire("key", "other", Duration.ofSeconds(1)).isAcquired()).isTrue();
	}

	@Test
	void aFullStoreRefusesNewKeysUntilAnEntryExpiresOrIsReleased() {
		InMemoryLockStore store = new InMemoryLockStore(this.nanos::get, 3);
		for (int i = 0; i < 3; i++) {
			assertThat(store.tryAcquire("key-" + i, "owner", Duration.ofSeconds(i + 1)).isAcquired()).isTrue();
		}
		assertThatExceptionOfType(LockStoreException.class)
			.isThrownBy(() -> store.tryAcquire("key-3", "owner", Duration.ofSeconds(1)))
			.withMessageContaining("at most 3")
			.withMessageContaining("lock.memory.max-entries");
		assertThatExceptionOfType(LockStoreException.class)
			.isThrownBy(() -> store.tryAcquireAll(List.of("a", "b"), "owner", Duration.ofSeconds(1)));
		assertThat(store.tryAcquire("key-0", "other", Duration.ofSeconds(1)).isAcquired())
			.as("a held key is answered as held, full or not")
			.isFalse();
		assertThat(store.release("key-2", "owner")).isTrue();
		assertThat(store.tryAcquire("key-3", "owner", Duration.ofSeconds(1)).isAcquired()).isTrue();
		// The first lock expires: no release needed, the store sweeps before refusing
		advance(Duration.ofMillis(1001));
		assertThat(store.tryAcquire("key-4", "owner", Duration.ofSeconds(1)).isAcquired()).isTrue();
	}

	@Test
	void keptResultsAreBoundedToo() {
		InMemoryLockStore store = new InMemoryLockStore(this.nanos::get, 2);
		for (int i = 0; i < 2; i++) {
			store.tryAcquire("key-" + i, "owner", Duration.ofSeconds(10));
			assertThat(store.putResult("key-" + i, "owner", new byte[] { 1 }, Duration.ofHours(1))).isTrue();
			store.release("key-" + i, "owner");
		}
		store.tryAcquire("key-2", "owner", Duration.ofSeconds(10));
		assertThatExceptionOfType(LockStoreException.class)
			.isThrownBy(() -> store.putResult("key-2", "owner", new byte[] { 1 }, Duration.ofHours(1)))
			.withMessageContaining("results");
		assertThat(store.getResult("key-0")).containsExactly(1);
	}

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

}
