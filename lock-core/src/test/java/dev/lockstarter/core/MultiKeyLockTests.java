package dev.lockstarter.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the multi-key acquisitions of {@link LockTemplate}, on the in-memory store
 * ({@code atomic}: its all-or-nothing acquisition) and through a store without that
 * ability ({@code generic}: ordered acquisition with rollback in the template).
 */
class MultiKeyLockTests {

	private static final Duration TTL = Duration.ofSeconds(10);

	private final InMemoryLockStore memory = new InMemoryLockStore();

	private final CallRecordingStore generic = new CallRecordingStore(this.memory);

	private LockTemplate locks(String path) {
		return new LockTemplate(path.equals("atomic") ? this.memory : this.generic, "app:");
	}

	@ParameterizedTest
	@ValueSource(strings = { "atomic", "generic" })
	void oneLeaseHoldsEveryKeyAndOneReleaseFreesThemAll(String path) {
		LockTemplate locks = locks(path);
		Lease lease = locks.acquire(List.of("account:B", "account:A", "account:B"), TTL);
		assertThat(lease.keys()).containsExactly("account:A", "account:B");
		assertThat(lease.isHeld()).isTrue();
		assertThat(locks.tryAcquire("account:A", TTL).isAcquired()).isFalse();
		assertThat(locks.tryAcquire("account:B", TTL).isAcquired()).isFalse();
		assertThat(locks.getHeldLocks()).extracting(HeldLock::key).containsExactlyInAnyOrder("account:A", "account:B");
		assertThat(lease.release()).isTrue();
		assertThat(lease.isHeld()).isFalse();
		assertThat(lease.release()).isFalse();
		assertThat(locks.getHeldLocks()).isEmpty();
		assertThat(this.memory.tryAcquire("app:account:A", "probe", TTL).isAcquired()).isTrue();
		assertThat(this.memory.tryAcquire("app:account:B", "probe", TTL).isAcquired()).isTrue();
	}

	@ParameterizedTest
	@ValueSource(strings = { "atomic", "generic" })
	void aHeldKeyBlocksTheWholeSetAndNothingElseStaysHeld(String path) {
		LockTemplate locks = locks(path);
		try (Lease holder = locks.acquire("account:B", TTL)) {
			LockAttempt attempt = locks.tryAcquire(List.of("account:A", "account:B", "account:C"), TTL);
			assertThat(attempt.isAcquired()).isFalse();
			assertThat(attempt.heldKey()).isEqualTo("account:B");
			assertThat(attempt.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(TTL);
			assertThatExceptionOfType(LockConflictException.class).isThrownBy(attempt::orElseThrow)
				.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("account:B"));
			assertThat(this.memory.tryAcquire("app:account:A", "probe", TTL).isAcquired()).isTrue();
			assertThat(this.memory.tryAcquire("app:account:C", "probe", TTL).isAcquired()).isTrue();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "atomic", "generic" })
	void keysAreTakenInOneOrderWhateverOrderTheyAreNamedIn(String path) {
		LockTemplate locks = locks(path);
		try (Lease lease = locks.acquire(List.of("z", "a", "m"), TTL)) {
			assertThat(lease.keys()).containsExactly("a", "m", "z");
		}
		if (path.equals("generic")) {
			assertThat(this.generic.acquired).containsExactly("app:a", "app:m", "app:z");
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "atomic", "generic" })
	void waiterTakesTheWholeSetOnceEveryKeyIsFree(String path) throws Exception {
		LockTemplate locks = locks(path);
		Lease a = locks.acquire("a", TTL);
		Lease b = locks.acquire("b", TTL);
		Thread releaser = new Thread(() -> {
			sleep(100);
			a.release();
			sleep(100);
			b.release();
		});
		releaser.start();
		long started = System.nanoTime();
		try (Lease lease = locks.acquire(List.of("b", "a"), LockOptions.ttl(TTL).withWaitTime(Duration.ofSeconds(5)))) {
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(190));
			assertThat(lease.isHeld()).isTrue();
		}
		releaser.join();
	}

	@ParameterizedTest
	@ValueSource(strings = { "atomic", "generic" })
	void fencingTokensArePerKeyAndIncreasePerKey(String path) {
		LockTemplate locks = locks(path);
		long before;
		try (Lease single = locks.acquire("a", TTL)) {
			before = single.fencingToken();
		}
		try (Lease lease = locks.acquire(List.of("a", "b"), TTL)) {
			assertThat(lease.fencingToken()).isZero();
			assertThat(lease.fencingToken("a")).isGreaterThan(before);
			assertThat(lease.fencingToken("b")).isPositive();
			before = lease.fencingToken("a");
		}
		try (Lease single = locks.acquire("a", TTL)) {
			assertThat(single.fencingToken()).isGreaterThan(before);
			assertThat(single.fencingToken("a")).isEqualTo(single.fencingToken());
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "atomic", "generic" })
	void minimumHoldKeepsEveryKeyAfterAFastRelease(String path) {
		LockTemplate locks = locks(path);
		Lease lease = locks.acquire(List.of("a", "b"), LockOptions.ttl(TTL).withHoldAtLeast(Duration.ofSeconds(5)));
		assertThat(lease.release()).isTrue();
		assertThat(locks.tryAcquire("a", TTL).holderRemainingTtl()).isPositive()
			.isLessThanOrEqualTo(Duration.ofSeconds(5));
		assertThat(locks.tryAcquire("b", TTL).isAcquired()).isFalse();
	}

	@ParameterizedTest
	@ValueSource(strings = { "atomic", "generic" })
	void lossOfOneKeyIsReportedForThatKeyAndTheLeaseIsNoLongerHeld(String path) throws Exception {
		LockTemplate locks = locks(path);
		List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
		locks.setApplicationEventPublisher((event) -> {
			if (event instanceof LockLostEvent lostEvent) {
				lost.add(lostEvent);
			}
		});
		Lease lease = locks.acquire(List.of("a", "b"), Duration.ofMillis(300));
		String token = tokenOf(locks, "b");
		assertThat(this.memory.release("app:b", token)).isTrue();
		await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> !lost.isEmpty());
		assertThat(lost).singleElement().satisfies((event) -> assertThat(event.key()).isEqualTo("b"));
		assertThat(lease.isHeld()).isFalse();
		assertThat(lease.release()).isFalse();
		assertThat(locks.tryAcquire("a", TTL).isAcquired()).as("the key still owned was released").isTrue();
		locks.destroy();
	}

	@ParameterizedTest
	@ValueSource(strings = { "atomic", "generic" })
	void renewalKeepsEveryKey(String path) throws Exception {
		LockTemplate locks = locks(path);
		Duration ttl = Duration.ofMillis(300);
		try (Lease lease = locks.acquire(List.of("a", "b", "c"), ttl)) {
			Thread.sleep(1000);
			assertThat(lease.isHeld()).isTrue();
			for (String key : List.of("a", "b", "c")) {
				assertThat(this.memory.tryAcquire("app:" + key, "intruder", ttl).isAcquired()).isFalse();
			}
		}
		locks.destroy();
	}

	@ParameterizedTest
	@ValueSource(strings = { "atomic", "generic" })
	void interruptedMultiKeyWaiterHoldsNothing(String path) throws Exception {
		LockTemplate locks = locks(path);
		try (Lease holder = locks.acquire("b", TTL)) {
			Throwable[] failure = new Throwable[1];
			Thread waiter = new Thread(() -> {
				try {
					locks.tryAcquire(List.of("a", "b"), LockOptions.ttl(TTL).withWaitTime(Duration.ofSeconds(20)));
				}
				catch (Throwable ex) {
					failure[0] = ex;
				}
			});
			waiter.start();
			// The waiter pauses between its tries in a timed wait: it found "b" held
			await("waiter waiting").atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(2))
				.until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
			waiter.interrupt();
			waiter.join(5000);
			assertThat(waiter.isAlive()).isFalse();
			assertThat(failure[0]).isInstanceOf(LockWaitInterruptedException.class);
			assertThat(this.memory.tryAcquire("app:a", "probe", TTL).isAcquired()).as("a is free").isTrue();
			assertThat(holder.isHeld()).isTrue();
		}
	}

	@Test
	void genericPathRollsBackTheKeysTakenBeforeAFailureAndCleansUpTheUnknownOne() throws Exception {
		this.generic.failOn = "app:b";
		LockTemplate locks = locks("generic");
		assertThatExceptionOfType(LockStoreException.class)
			.isThrownBy(() -> locks.acquire(List.of("a", "b", "c"), TTL));
		this.generic.failOn = null;
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> locks.cleaner().pending() == 0);
		assertThat(this.generic.acquired).doesNotContain("app:c");
		assertThat(locks.tryAcquire(List.of("a", "b", "c"), TTL).isAcquired()).isTrue();
		locks.destroy();
	}

	@Test
	void genericPathRollbackWhoseReleaseFailsIsRetriedInTheBackground() throws Exception {
		LockTemplate locks = locks("generic");
		try (Lease holder = locks.acquire("c", TTL)) {
			this.generic.failReleases.set(true);
			assertThat(locks.tryAcquire(List.of("a", "b", "c"), TTL).isAcquired()).isFalse();
			assertThat(locks.tryAcquire("a", TTL).isAcquired()).as("rollback failed, a is still held").isFalse();
			this.generic.failReleases.set(false);
			await().atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> locks.cleaner().pending() == 0);
			assertThat(locks.tryAcquire(List.of("a", "b"), TTL).isAcquired()).isTrue();
		}
		locks.destroy();
	}

	private String tokenOf(LockTemplate locks, String key) {
		return locks.getHeldLocks()
			.stream()
			.filter((held) -> held.key().equals(key))
			.map((held) -> ((StoreLease) held).token())
			.findFirst()
			.orElseThrow();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * A store with the four methods only, so that the template takes the generic path;
	 * records the keys it acquired and fails on demand.
	 */
	static final class CallRecordingStore implements LockStore {

		private final LockStore delegate;

		final List<String> acquired = new CopyOnWriteArrayList<>();

		final AtomicBoolean failReleases = new AtomicBoolean();

		volatile String failOn;

		CallRecordingStore(LockStore delegate) {
			this.delegate = delegate;
		}

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			if (key.equals(this.failOn)) {
				// Granted, but the answer is lost
				this.delegate.tryAcquire(key, token, ttl);
				throw new LockStoreException(key, "lost reply", new IllegalStateException());
			}
			AcquireReply result = this.delegate.tryAcquire(key, token, ttl);
			if (result.isAcquired()) {
				this.acquired.add(key);
			}
			return result;
		}

		@Override
		public boolean release(String key, String token) {
			if (this.failReleases.get()) {
				throw new LockStoreException(key, "release failed", new IllegalStateException());
			}
			return this.delegate.release(key, token);
		}

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			return this.delegate.extend(key, token, ttl);
		}

		@Override
		public Duration timeToExpiry(String key) {
			return this.delegate.timeToExpiry(key);
		}

	}

}
