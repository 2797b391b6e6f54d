package dev.lockstarter.test.adapter;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.Test;

import dev.lockstarter.core.LockNotHeldException;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.test.adapter.AdapterUnderTest.Waiter;

import static dev.lockstarter.test.adapter.AdapterUnderTest.DEADLINE;
import static dev.lockstarter.test.adapter.AdapterUnderTest.LONG_TTL;
import static dev.lockstarter.test.adapter.AdapterUnderTest.sleepUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@link Lock} of
 * {@link dev.lockstarter.core.LockOperations#lock(String, LockOptions)}: the {@code Lock}
 * methods across instances and threads, reentrancy, {@link IllegalMonitorStateException}
 * for a thread that does not hold it, {@link LockNotHeldException} for the unlock of a
 * lock that expired and was taken over, and no conditions.
 */
interface JavaLockContract extends AdapterContract {

	private static LockOptions options() {
		return LockOptions.ttl(LONG_TTL);
	}

	@Test
	default void javaLockHoldsTheKeyForEveryInstanceUntilUnlocked() {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("java-lock");
		Lock lock = fixture.newLock(key, options());
		lock.lock();
		fixture.assertHeld(key);
		assertThat(fixture.newLock(key, options()).tryLock()).isFalse();
		lock.unlock();
		fixture.assertFree(key);
	}

	@Test
	default void javaTryLockFailsWhileAnotherInstanceHoldsTheLockAndSucceedsOnceItIsReleased() {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("java-try-lock");
		Lock first = fixture.newLock(key, options());
		Lock second = fixture.newLock(key, options());
		assertThat(first.tryLock()).isTrue();
		assertThat(second.tryLock()).isFalse();
		first.unlock();
		assertThat(second.tryLock()).isTrue();
		assertThat(first.tryLock()).isFalse();
		second.unlock();
		fixture.assertFree(key);
	}

	@Test
	default void anotherThreadCannotTakeAJavaLockThatIsHeld() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("java-other-thread");
		Lock lock = fixture.newLock(key, options());
		lock.lock();
		assertThat(fixture.inAnotherThread(lock::tryLock).get()).isFalse();
		assertThat(fixture.inAnotherThread(() -> lock.tryLock(100, TimeUnit.MILLISECONDS)).get()).isFalse();
		lock.unlock();
		assertThat(fixture.inAnotherThread(() -> {
			boolean acquired = lock.tryLock();
			lock.unlock();
			return acquired;
		}).get()).isTrue();
	}

	@Test
	default void javaTryLockWithAWaitGetsTheLockOnceTheHolderReleases() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("java-try-lock-waits");
		Lock holder = fixture.newLock(key, options());
		Lock other = fixture.newLock(key, options());
		holder.lock();
		Waiter<Boolean> waiter = fixture.inAnotherThread(() -> {
			if (!other.tryLock(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
				return false;
			}
			fixture.assertHeld(key);
			other.unlock();
			return true;
		});
		assertThat(waiter.isStillRunningAfter(Duration.ofMillis(200))).as("waiting while the lock is held").isTrue();
		holder.unlock();
		assertThat(waiter.get()).isTrue();
		fixture.assertFree(key);
	}

	@Test
	default void javaLockInterruptiblyAnswersAnInterruptionWhileWaitingAndHoldsNothing() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("java-interrupted");
		Lock holder = fixture.newLock(key, options());
		Lock other = fixture.newLock(key, options());
		holder.lock();
		Waiter<Void> waiter = fixture.inAnotherThread(() -> {
			other.lockInterruptibly();
			return null;
		});
		assertInterruptedAndHoldingNothing(fixture, key, holder, other, waiter);
	}

	@Test
	default void javaTryLockWithAWaitAnswersAnInterruptionWhileWaitingAndHoldsNothing() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("java-try-interrupted");
		Lock holder = fixture.newLock(key, options());
		Lock other = fixture.newLock(key, options());
		holder.lock();
		Waiter<Boolean> waiter = fixture
			.inAnotherThread(() -> other.tryLock(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
		assertInterruptedAndHoldingNothing(fixture, key, holder, other, waiter);
	}

	private static void assertInterruptedAndHoldingNothing(AdapterUnderTest fixture, String key, Lock holder,
			Lock other, Waiter<?> waiter) throws Exception {
		waiter.awaitBlocked();
		waiter.interrupt();
		assertThat(waiter.failure()).isInstanceOf(InterruptedException.class);
		fixture.assertHeld(key);
		holder.unlock();
		fixture.assertFree(key);
		// Nor does the interrupted thread hold the lock in its instance
		assertThat(other.tryLock()).isTrue();
		other.unlock();
	}

	@Test
	default void holdingThreadLocksAJavaLockAgainAndHoldsItUntilItsLastUnlock() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("java-reentrant");
		Lock lock = fixture.newLock(key, options());
		lock.lock();
		lock.lockInterruptibly();
		assertThat(lock.tryLock(100, TimeUnit.MILLISECONDS)).isTrue();
		lock.unlock();
		lock.unlock();
		fixture.assertHeld(key);
		assertThat(fixture.inAnotherThread(lock::tryLock).get()).isFalse();
		lock.unlock();
		fixture.assertFree(key);
	}

	@Test
	default void javaUnlockByAThreadThatDoesNotHoldTheLockThrowsIllegalMonitorState() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("java-wrong-thread");
		Lock lock = fixture.newLock(key, options());
		lock.lock();
		Waiter<Void> stranger = fixture.inAnotherThread(() -> {
			lock.unlock();
			return null;
		});
		assertThat(stranger.failure()).isInstanceOf(IllegalMonitorStateException.class);
		fixture.assertHeld(key);
		lock.unlock();
		fixture.assertFree(key);
		assertThatExceptionOfType(IllegalMonitorStateException.class).as("second unlock").isThrownBy(lock::unlock);
	}

	@Test
	default void javaLockWithRenewalIsHeldPastItsTimeToLive() {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("java-renewed");
		Lock lock = fixture.newLock(key, LockOptions.ttl(fixture.slackTtl()));
		long start = System.nanoTime();
		lock.lock();
		sleepUntil(start + fixture.slackTtl().multipliedBy(2).toNanos());
		fixture.assertHeld(key);
		lock.unlock();
		fixture.assertFree(key);
	}

	@Test
	default void javaUnlockOfALockThatExpiredAndWasTakenOverThrowsLockNotHeldAndLeavesTheNewHolder() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("java-taken-over");
		Lock expired = fixture.newLock(key, LockOptions.ttl(fixture.shortTtl()).withRenewal(false));
		Lock taker = fixture.newLock(key, options());
		expired.lock();
		fixture.awaitTrue("Taking over " + key, taker::tryLock);
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(expired::unlock);
		fixture.assertHeld(key);
		assertThat(expired.tryLock()).as("tryLock of the expired holder while the new holder holds the lock").isFalse();
		taker.unlock();
		// The expired holder's thread holds nothing any more, in the store or in its
		// instance
		assertThat(fixture.inAnotherThread(() -> {
			boolean acquired = expired.tryLock();
			expired.unlock();
			return acquired;
		}).get()).isTrue();
		fixture.assertFree(key);
	}

	@Test
	default void javaLockHasNoConditions() {
		AdapterUnderTest fixture = adapterUnderTest();
		Lock lock = fixture.newLock(fixture.uniqueKey("java-condition"), options());
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(lock::newCondition);
	}

}
