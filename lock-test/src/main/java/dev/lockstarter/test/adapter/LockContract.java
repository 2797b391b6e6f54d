package dev.lockstarter.test.adapter;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.test.adapter.AdapterUnderTest.Waiter;

import static dev.lockstarter.test.adapter.AdapterUnderTest.DEADLINE;
import static dev.lockstarter.test.adapter.AdapterUnderTest.LONG_TTL;
import static dev.lockstarter.test.adapter.AdapterUnderTest.elapsedSince;
import static dev.lockstarter.test.adapter.AdapterUnderTest.sleepUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@link Lock} of each {@link LockFactory}: the {@code Lock} methods across instances
 * and threads, blocking, timed and interruptible acquisition, reentrancy by the holding
 * thread, {@link IllegalMonitorStateException} for a thread that does not hold it, the
 * factory's exception for the unlock of a lock that expired and was taken over (which the
 * new holder keeps), renewal past the time-to-live, and no conditions.
 */
interface LockContract extends AdapterContract {

	private static LockOptions options() {
		return LockOptions.ttl(LONG_TTL);
	}

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void lockHoldsTheKeyForEveryInstanceUntilUnlocked(LockFactory locks) {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("lock");
		Lock lock = locks.newLock(fixture, key, options());
		lock.lock();
		fixture.assertHeld(key);
		assertThat(locks.newLock(fixture, key, options()).tryLock()).isFalse();
		lock.unlock();
		fixture.assertFree(key);
	}

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void tryLockFailsWhileAnotherInstanceHoldsTheLockAndSucceedsOnceItIsReleased(LockFactory locks) {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("try-lock");
		Lock first = locks.newLock(fixture, key, options());
		Lock second = locks.newLock(fixture, key, options());
		assertThat(first.tryLock()).isTrue();
		assertThat(second.tryLock()).isFalse();
		first.unlock();
		assertThat(second.tryLock()).isTrue();
		assertThat(first.tryLock()).isFalse();
		second.unlock();
		fixture.assertFree(key);
	}

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void anotherThreadCannotTakeALockThatIsHeld(LockFactory locks) throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("other-thread");
		Lock lock = locks.newLock(fixture, key, options());
		lock.lock();
		assertThat(fixture.inAnotherThread(lock::tryLock).get()).isFalse();
		assertThat(fixture.inAnotherThread(() -> lock.tryLock(100, TimeUnit.MILLISECONDS)).get()).isFalse();
		lock.unlock();
		fixture.assertFree(key);
		assertThat(fixture.inAnotherThread(() -> {
			boolean acquired = lock.tryLock();
			lock.unlock();
			return acquired;
		}).get()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void differentKeysAreIndependent(LockFactory locks) {
		AdapterUnderTest fixture = adapterUnderTest();
		String firstKey = fixture.uniqueKey("independent-1");
		String secondKey = fixture.uniqueKey("independent-2");
		Lock first = locks.newLock(fixture, firstKey, options());
		Lock second = locks.newLock(fixture, secondKey, options());
		assertThat(first.tryLock()).isTrue();
		assertThat(second.tryLock()).isTrue();
		first.unlock();
		fixture.assertHeld(secondKey);
		second.unlock();
	}

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void lockWaitsUntilTheHolderReleases(LockFactory locks) throws Exception {
		assertWaiterGetsTheLockOnceTheHolderReleases(locks, "lock-waits", (other) -> {
			other.lock();
			return true;
		});
	}

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void tryLockWithAWaitGetsTheLockOnceTheHolderReleases(LockFactory locks) throws Exception {
		assertWaiterGetsTheLockOnceTheHolderReleases(locks, "try-lock-waits",
				(other) -> other.tryLock(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
	}

	private void assertWaiterGetsTheLockOnceTheHolderReleases(LockFactory locks, String name, Acquisition acquisition)
			throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey(name);
		Lock holder = locks.newLock(fixture, key, options());
		Lock other = locks.newLock(fixture, key, options());
		holder.lock();
		Waiter<Boolean> waiter = fixture.inAnotherThread(() -> {
			if (!acquisition.acquire(other)) {
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

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void tryLockWithAWaitGivesUpWhenTheWaitEnds(LockFactory locks) throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("try-lock-gives-up");
		Lock holder = locks.newLock(fixture, key, options());
		Lock other = locks.newLock(fixture, key, options());
		holder.lock();
		Duration wait = Duration.ofMillis(200);
		long start = System.nanoTime();
		assertThat(other.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)).isFalse();
		assertThat(Duration.ofNanos(elapsedSince(start))).as("time waited").isGreaterThanOrEqualTo(wait);
		fixture.assertHeld(key);
		holder.unlock();
	}

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void lockWithRenewalIsHeldPastItsTimeToLive(LockFactory locks) {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("renewed");
		Lock lock = locks.newLock(fixture, key, LockOptions.ttl(fixture.slackTtl()));
		long start = System.nanoTime();
		lock.lock();
		sleepUntil(start + fixture.slackTtl().multipliedBy(2).toNanos());
		fixture.assertHeld(key);
		lock.unlock();
		fixture.assertFree(key);
	}

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void holdingThreadLocksAgainAndHoldsTheLockUntilItsLastUnlock(LockFactory locks) throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("reentrant");
		Lock lock = locks.newLock(fixture, key, options());
		lock.lock();
		lock.lockInterruptibly();
		assertThat(lock.tryLock()).isTrue();
		assertThat(lock.tryLock(100, TimeUnit.MILLISECONDS)).isTrue();
		lock.unlock();
		lock.unlock();
		lock.unlock();
		fixture.assertHeld(key);
		assertThat(fixture.inAnotherThread(lock::tryLock).get()).isFalse();
		lock.unlock();
		fixture.assertFree(key);
	}

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void unlockByAThreadThatDoesNotHoldTheLockThrowsIllegalMonitorState(LockFactory locks) throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("wrong-thread");
		Lock lock = locks.newLock(fixture, key, options());
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
		Lock neverLocked = locks.newLock(fixture, fixture.uniqueKey("never-locked"), options());
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(neverLocked::unlock);
	}

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void unlockOfALockThatExpiredAndWasTakenOverThrowsAndLeavesTheNewHolder(LockFactory locks)
			throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("taken-over");
		Lock expired = locks.newLock(fixture, key, LockOptions.ttl(fixture.shortTtl()).withRenewal(false));
		Lock taker = locks.newLock(fixture, key, options());
		expired.lock();
		fixture.awaitTrue("Taking over " + key, taker::tryLock);
		assertThatExceptionOfType(locks.lostLockException()).isThrownBy(expired::unlock);
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
		assertThat(expired.tryLock()).isTrue();
		expired.unlock();
		fixture.assertFree(key);
	}

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void lockInterruptiblyAnswersAnInterruptionWhileWaitingAndHoldsNothing(LockFactory locks) throws Exception {
		assertInterruptedWhileWaitingAndHoldingNothing(locks, "lock-interrupted", (other) -> {
			other.lockInterruptibly();
			return true;
		});
	}

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void tryLockWithAWaitAnswersAnInterruptionWhileWaitingAndHoldsNothing(LockFactory locks) throws Exception {
		assertInterruptedWhileWaitingAndHoldingNothing(locks, "try-lock-interrupted",
				(other) -> other.tryLock(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
	}

	private void assertInterruptedWhileWaitingAndHoldingNothing(LockFactory locks, String name, Acquisition acquisition)
			throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey(name);
		Lock holder = locks.newLock(fixture, key, options());
		Lock other = locks.newLock(fixture, key, options());
		holder.lock();
		Waiter<Boolean> waiter = fixture.inAnotherThread(() -> acquisition.acquire(other));
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

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void interruptedThreadIsNotGivenTheLock(LockFactory locks) {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("already-interrupted");
		Lock lock = locks.newLock(fixture, key, options());
		Thread.currentThread().interrupt();
		try {
			assertThatExceptionOfType(InterruptedException.class).isThrownBy(lock::lockInterruptibly);
			Thread.currentThread().interrupt();
			assertThatExceptionOfType(InterruptedException.class)
				.isThrownBy(() -> lock.tryLock(100, TimeUnit.MILLISECONDS));
		}
		finally {
			Thread.interrupted();
		}
		fixture.assertFree(key);
	}

	@ParameterizedTest
	@EnumSource(LockFactory.class)
	default void conditionsAreNotSupported(LockFactory locks) {
		AdapterUnderTest fixture = adapterUnderTest();
		Lock lock = locks.newLock(fixture, fixture.uniqueKey("condition"), options());
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(lock::newCondition);
	}

	/**
	 * A way to acquire a lock that may wait.
	 */
	@FunctionalInterface
	interface Acquisition {

		/**
		 * Acquire the lock.
		 * @param lock the lock
		 * @return whether it was acquired
		 * @throws InterruptedException if interrupted while waiting
		 */
		boolean acquire(Lock lock) throws InterruptedException;

	}

}
