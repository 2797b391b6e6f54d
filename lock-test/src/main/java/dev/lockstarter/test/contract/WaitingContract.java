package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockWaitInterruptedException;
import dev.lockstarter.store.LockStore;

import static dev.lockstarter.test.contract.TemplateUnderTest.LONG_TTL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiting for a lock: a waiter takes it once the holder releases, one release lets
 * exactly one of two waiters in, and a wait that times out or is interrupted, or fixed
 * retries that run out, leave nothing held.
 */
interface WaitingContract extends TemplateContract {

	@Test
	default void waiterAcquiresOnceTheHolderReleases() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		String key = fixture.uniqueKey("handoff");
		Lease holder = fixture.locks().acquire(key, LONG_TTL);
		int refused = fixture.recording().refusals();
		Future<LockAttempt> waiter = fixture.executor()
			.submit(() -> fixture.locks()
				.tryAcquire(key, LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofSeconds(10))));
		fixture.recording().awaitRefusals(refused + 1);
		assertThat(waiter).isNotDone();
		assertThat(holder.release()).isTrue();
		LockAttempt attempt = waiter.get(5, TimeUnit.SECONDS);
		assertThat(attempt.isAcquired()).isTrue();
		assertThat(attempt.lease().isHeld()).isTrue();
		attempt.lease().release();
	}

	@Test
	default void oneReleaseWithTwoWaitersHasExactlyOneWinner() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		String key = fixture.uniqueKey("two-waiters");
		Lease holder = fixture.locks().acquire(key, LONG_TTL);
		LockOptions waitABit = LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofMillis(1500));
		int refused = fixture.recording().refusedOwners();
		Future<LockAttempt> first = fixture.executor().submit(() -> fixture.locks().tryAcquire(key, waitABit));
		Future<LockAttempt> second = fixture.executor().submit(() -> fixture.locks().tryAcquire(key, waitABit));
		// Both waiters found the lock held, so both wait for this release
		fixture.recording().awaitRefusedOwners(refused + 2);
		holder.release();
		List<LockAttempt> attempts = List.of(first.get(5, TimeUnit.SECONDS), second.get(5, TimeUnit.SECONDS));
		assertThat(attempts).filteredOn(LockAttempt::isAcquired).hasSize(1);
		attempts.stream().filter(LockAttempt::isAcquired).forEach((attempt) -> attempt.lease().release());
	}

	@Test
	default void waitThatTimesOutReturnsTheConflictAndLeavesNothingHeld() {
		TemplateUnderTest fixture = templateUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("timeout");
		Lease holder = fixture.locks().acquire(key, LONG_TTL);
		LockAttempt attempt = fixture.locks()
			.tryAcquire(key, LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofMillis(300)));
		assertThat(attempt.isAcquired()).isFalse();
		assertThat(attempt.holderRemainingTtl()).isPositive();
		assertThat(fixture.recording().acquiredTokens(fixture.storeKey(key))).hasSize(1);
		assertThat(holder.release()).isTrue();
		assertThat(store.tryAcquire(fixture.storeKey(key), "probe", LONG_TTL).isAcquired()).isTrue();
	}

	@Test
	default void interruptedWaitLeavesNothingHeld() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("interrupted");
		Lease holder = fixture.locks().acquire(key, LONG_TTL);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		AtomicBoolean interruptFlag = new AtomicBoolean();
		Thread waiter = new Thread(() -> {
			try {
				fixture.locks().tryAcquire(key, LockOptions.ttl(LONG_TTL).withWaitTime(Duration.ofSeconds(20)));
			}
			catch (Throwable ex) {
				failure.set(ex);
				interruptFlag.set(Thread.currentThread().isInterrupted());
			}
		});
		int refused = fixture.recording().refusals();
		waiter.start();
		fixture.recording().awaitRefusals(refused + 1);
		waiter.interrupt();
		waiter.join(5000);
		assertThat(waiter.isAlive()).isFalse();
		assertThat(failure.get()).isInstanceOf(LockWaitInterruptedException.class);
		assertThat(interruptFlag).isTrue();
		assertThat(fixture.recording().acquiredTokens(fixture.storeKey(key))).hasSize(1);
		holder.release();
		assertThat(store.tryAcquire(fixture.storeKey(key), "probe", LONG_TTL).isAcquired()).isTrue();
	}

	@Test
	default void retriesAtAFixedIntervalAcquireOnceTheHolderReleases() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		String key = fixture.uniqueKey("retries");
		Lease holder = fixture.locks().acquire(key, LONG_TTL);
		int refused = fixture.recording().refusals();
		fixture.executor().submit(() -> {
			fixture.recording().awaitRefusals(refused + 1);
			return holder.release();
		});
		LockAttempt attempt = fixture.locks()
			.tryAcquire(key, LockOptions.ttl(LONG_TTL).withRetries(3, Duration.ofMillis(200)));
		assertThat(attempt.isAcquired()).isTrue();
		attempt.lease().release();
		Lease blocker = fixture.locks().acquire(key, LONG_TTL);
		assertThat(fixture.locks()
			.tryAcquire(key, LockOptions.ttl(LONG_TTL).withRetries(2, Duration.ofMillis(50)))
			.isAcquired()).isFalse();
		blocker.release();
	}

}
