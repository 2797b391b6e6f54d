package dev.lockstarter.test.adapter;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.test.adapter.AdapterUnderTest.Waiter;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

import static dev.lockstarter.test.adapter.AdapterUnderTest.DEADLINE;
import static dev.lockstarter.test.adapter.AdapterUnderTest.EXPIRY_TOLERANCE;
import static dev.lockstarter.test.adapter.AdapterUnderTest.LONG_TTL;
import static dev.lockstarter.test.adapter.AdapterUnderTest.elapsedSince;
import static dev.lockstarter.test.adapter.AdapterUnderTest.sleepUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Spring Integration's lock registry contract: what {@code LockRegistry},
 * {@code DistributedLock} and {@code RenewableLockRegistry} state and
 * {@code RedisLockRegistry} does. Each test uses registries of two or more instances on
 * the one store.
 */
interface DistributedLockContract extends AdapterContract {

	/** Options of a registry whose locks outlive the test and are not renewed. */
	LockOptions UNRENEWED = LockOptions.ttl(LONG_TTL).withRenewal(false);

	@Test
	default void registryReturnsTheSameLockForAKeyWhileItIsHeld() {
		AdapterUnderTest fixture = adapterUnderTest();
		RenewableLockRegistry<DistributedLock> registry = fixture.newRegistry(LockOptions.ttl(LONG_TTL));
		String key = fixture.uniqueKey("same");
		DistributedLock lock = registry.obtain(key);
		lock.lock();
		try {
			assertThat(registry.obtain(key)).isSameAs(lock);
			assertThat(registry.obtain(fixture.uniqueKey("other"))).isNotSameAs(lock);
			if (registry instanceof ExpirableLockRegistry<?> expirable) {
				// A held lock is not unused, however old
				expirable.expireUnusedOlderThan(-1000);
				assertThat(registry.obtain(key)).isSameAs(lock);
			}
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	default void registryRejectsAKeyThatIsNotAString() {
		RenewableLockRegistry<DistributedLock> registry = adapterUnderTest().newRegistry(LockOptions.ttl(LONG_TTL));
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(42));
	}

	@Test
	default void lockHoldsTheKeyForEveryInstanceUntilUnlocked() {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("lock");
		DistributedLock lock = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		lock.lock();
		fixture.assertHeld(key);
		assertThat(fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key).tryLock()).isFalse();
		lock.unlock();
		fixture.assertFree(key);
	}

	@Test
	default void tryLockFailsWhileAnotherInstanceHoldsTheLockAndSucceedsOnceItIsReleased() {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("try-lock");
		DistributedLock first = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		DistributedLock second = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		assertThat(first.tryLock()).isTrue();
		assertThat(second.tryLock()).isFalse();
		first.unlock();
		assertThat(second.tryLock()).isTrue();
		assertThat(first.tryLock()).isFalse();
		second.unlock();
		fixture.assertFree(key);
	}

	@Test
	default void anotherThreadOfTheHoldingInstanceCannotTakeTheLock() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		RenewableLockRegistry<DistributedLock> registry = fixture.newRegistry(LockOptions.ttl(LONG_TTL));
		String key = fixture.uniqueKey("same-instance");
		DistributedLock lock = registry.obtain(key);
		lock.lock();
		assertThat(fixture.inAnotherThread(() -> registry.obtain(key).tryLock()).get()).isFalse();
		assertThat(fixture.inAnotherThread(() -> registry.obtain(key).tryLock(100, TimeUnit.MILLISECONDS)).get())
			.isFalse();
		lock.unlock();
		fixture.assertFree(key);
	}

	@Test
	default void differentKeysAreIndependent() {
		AdapterUnderTest fixture = adapterUnderTest();
		String firstKey = fixture.uniqueKey("independent-1");
		String secondKey = fixture.uniqueKey("independent-2");
		DistributedLock first = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(firstKey);
		DistributedLock second = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(secondKey);
		assertThat(first.tryLock()).isTrue();
		assertThat(second.tryLock()).isTrue();
		first.unlock();
		fixture.assertHeld(secondKey);
		second.unlock();
	}

	@Test
	default void lockWaitsUntilTheHolderReleases() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("lock-waits");
		DistributedLock holder = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		RenewableLockRegistry<DistributedLock> other = fixture.newRegistry(LockOptions.ttl(LONG_TTL));
		holder.lock();
		Waiter<Boolean> waiter = fixture.inAnotherThread(() -> {
			DistributedLock lock = other.obtain(key);
			lock.lock();
			fixture.assertHeld(key);
			lock.unlock();
			return true;
		});
		assertThat(waiter.isStillRunningAfter(Duration.ofMillis(200))).as("waiting while the lock is held").isTrue();
		holder.unlock();
		assertThat(waiter.get()).isTrue();
		fixture.assertFree(key);
	}

	@Test
	default void tryLockWithAWaitGetsTheLockOnceTheHolderReleases() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("try-lock-waits");
		DistributedLock holder = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		RenewableLockRegistry<DistributedLock> other = fixture.newRegistry(LockOptions.ttl(LONG_TTL));
		holder.lock();
		Waiter<Boolean> waiter = fixture.inAnotherThread(() -> {
			DistributedLock lock = other.obtain(key);
			if (!lock.tryLock(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
				return false;
			}
			fixture.assertHeld(key);
			lock.unlock();
			return true;
		});
		assertThat(waiter.isStillRunningAfter(Duration.ofMillis(200))).as("waiting while the lock is held").isTrue();
		holder.unlock();
		assertThat(waiter.get()).isTrue();
		fixture.assertFree(key);
	}

	@Test
	default void tryLockWithAWaitGivesUpWhenTheWaitEnds() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("try-lock-gives-up");
		DistributedLock holder = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		DistributedLock other = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		holder.lock();
		Duration wait = Duration.ofMillis(200);
		long start = System.nanoTime();
		assertThat(other.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)).isFalse();
		assertThat(Duration.ofNanos(elapsedSince(start))).as("time waited").isGreaterThanOrEqualTo(wait);
		fixture.assertHeld(key);
		holder.unlock();
	}

	@Test
	default void lockWithATimeToLiveExpiresWhenTheRegistryDoesNotRenew() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("lock-ttl");
		DistributedLock lock = fixture.newRegistry(UNRENEWED).obtain(key);
		long start = System.nanoTime();
		lock.lock(fixture.slackTtl());
		assertExpiresAndIsTakenOver(fixture, key, lock, start);
	}

	@Test
	default void tryLockWithATimeToLiveExpiresWhenTheRegistryDoesNotRenew() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("try-lock-ttl");
		DistributedLock lock = fixture.newRegistry(UNRENEWED).obtain(key);
		long start = System.nanoTime();
		assertThat(lock.tryLock(Duration.ofMillis(100), fixture.slackTtl())).isTrue();
		assertExpiresAndIsTakenOver(fixture, key, lock, start);
	}

	private static void assertExpiresAndIsTakenOver(AdapterUnderTest fixture, String key, DistributedLock lock,
			long start) throws Exception {
		DistributedLock other = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		assertThat(other.tryLock()).as("another instance's tryLock before the time-to-live passed").isFalse();
		fixture.awaitTrue("Taking over " + key, other::tryLock);
		assertThat(Duration.ofNanos(elapsedSince(start))).as("time until the lock was taken over")
			.isGreaterThanOrEqualTo(fixture.slackTtl().minus(EXPIRY_TOLERANCE));
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
		fixture.assertHeld(key);
		other.unlock();
	}

	@Test
	default void registryThatRenewsKeepsItsLocksPastTheirTimeToLive() {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("renewed");
		DistributedLock lock = fixture.newRegistry(LockOptions.ttl(fixture.slackTtl())).obtain(key);
		long start = System.nanoTime();
		lock.lock();
		sleepUntil(start + fixture.slackTtl().multipliedBy(2).toNanos());
		fixture.assertHeld(key);
		lock.unlock();
		fixture.assertFree(key);
	}

	@Test
	default void holdingThreadLocksAgainAndHoldsTheLockUntilItsLastUnlock() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("reentrant");
		RenewableLockRegistry<DistributedLock> registry = fixture.newRegistry(LockOptions.ttl(LONG_TTL));
		DistributedLock lock = registry.obtain(key);
		lock.lock();
		lock.lockInterruptibly();
		assertThat(lock.tryLock()).isTrue();
		assertThat(registry.obtain(key)).isSameAs(lock);
		lock.unlock();
		lock.unlock();
		fixture.assertHeld(key);
		assertThat(fixture.inAnotherThread(() -> registry.obtain(key).tryLock()).get()).isFalse();
		lock.unlock();
		fixture.assertFree(key);
	}

	@Test
	default void unlockByAThreadThatDoesNotHoldTheLockThrowsIllegalMonitorState() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("wrong-thread");
		RenewableLockRegistry<DistributedLock> registry = fixture.newRegistry(LockOptions.ttl(LONG_TTL));
		DistributedLock lock = registry.obtain(key);
		lock.lock();
		Waiter<Void> stranger = fixture.inAnotherThread(() -> {
			lock.unlock();
			return null;
		});
		assertThat(stranger.failure()).isInstanceOf(IllegalMonitorStateException.class);
		fixture.assertHeld(key);
		lock.unlock();
		fixture.assertFree(key);
		DistributedLock neverLocked = registry.obtain(fixture.uniqueKey("never-locked"));
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(neverLocked::unlock);
	}

	@Test
	default void unlockOfALockThatExpiredAndWasTakenOverThrowsConcurrentModificationAndLeavesTheNewHolder()
			throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("taken-over");
		DistributedLock expired = fixture.newRegistry(LockOptions.ttl(fixture.shortTtl()).withRenewal(false))
			.obtain(key);
		DistributedLock taker = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		expired.lock();
		fixture.awaitTrue("Taking over " + key, taker::tryLock);
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(expired::unlock);
		fixture.assertHeld(key);
		assertThat(expired.tryLock()).as("tryLock of the expired holder while the new holder holds the lock").isFalse();
		taker.unlock();
		// The expired holder's thread holds nothing any more, in the store or in its
		// instance
		assertThat(expired.tryLock()).isTrue();
		expired.unlock();
		fixture.assertFree(key);
	}

	@Test
	default void lockInterruptiblyAnswersAnInterruptionWhileWaitingAndHoldsNothing() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("lock-interrupted");
		DistributedLock holder = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		RenewableLockRegistry<DistributedLock> other = fixture.newRegistry(LockOptions.ttl(LONG_TTL));
		holder.lock();
		Waiter<Void> waiter = fixture.inAnotherThread(() -> {
			other.obtain(key).lockInterruptibly();
			return null;
		});
		assertInterruptedAndHoldingNothing(fixture, key, holder, other, waiter);
	}

	@Test
	default void tryLockWithAWaitAnswersAnInterruptionWhileWaitingAndHoldsNothing() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("try-lock-interrupted");
		DistributedLock holder = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		RenewableLockRegistry<DistributedLock> other = fixture.newRegistry(LockOptions.ttl(LONG_TTL));
		holder.lock();
		Waiter<Boolean> waiter = fixture
			.inAnotherThread(() -> other.obtain(key).tryLock(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
		assertInterruptedAndHoldingNothing(fixture, key, holder, other, waiter);
	}

	private static void assertInterruptedAndHoldingNothing(AdapterUnderTest fixture, String key, DistributedLock holder,
			RenewableLockRegistry<DistributedLock> other, Waiter<?> waiter) throws Exception {
		waiter.awaitBlocked();
		waiter.interrupt();
		assertThat(waiter.failure()).isInstanceOf(InterruptedException.class);
		fixture.assertHeld(key);
		holder.unlock();
		fixture.assertFree(key);
		// Nor does the interrupted thread hold the lock in its instance
		DistributedLock lock = other.obtain(key);
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
	}

	@Test
	default void interruptedThreadIsNotGivenTheLock() {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("already-interrupted");
		DistributedLock lock = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
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

	@Test
	default void renewLockKeepsTheLockPastItsTimeToLive() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("renew");
		RenewableLockRegistry<DistributedLock> registry = fixture.newRegistry(UNRENEWED);
		DistributedLock lock = registry.obtain(key);
		long start = System.nanoTime();
		lock.lock(fixture.slackTtl());
		// The registry's time-to-live, far longer than the lock's own
		registry.renewLock(key);
		sleepUntil(start + fixture.slackTtl().multipliedBy(2).toNanos());
		fixture.assertHeld(key);
		lock.unlock();
		fixture.assertFree(key);
	}

	@Test
	default void renewLockWithATimeToLiveKeepsTheLockForThatTimeToLive() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("renew-ttl");
		RenewableLockRegistry<DistributedLock> registry = fixture
			.newRegistry(LockOptions.ttl(fixture.slackTtl()).withRenewal(false));
		DistributedLock lock = registry.obtain(key);
		lock.lock();
		long renewed = System.nanoTime();
		Duration ttl = fixture.slackTtl().multipliedBy(2);
		registry.renewLock(key, ttl);
		sleepUntil(renewed + fixture.slackTtl().multipliedBy(3).dividedBy(2).toNanos());
		fixture.assertHeld(key);
		DistributedLock taker = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		fixture.awaitTrue("Taking over " + key, taker::tryLock);
		assertThat(Duration.ofNanos(elapsedSince(renewed))).as("time until the renewed lock was taken over")
			.isGreaterThanOrEqualTo(ttl.minus(EXPIRY_TOLERANCE));
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
		taker.unlock();
	}

	@Test
	default void renewLockByAThreadThatDoesNotHoldTheLockThrowsIllegalState() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("renew-stranger");
		RenewableLockRegistry<DistributedLock> registry = fixture.newRegistry(UNRENEWED);
		DistributedLock lock = registry.obtain(key);
		lock.lock(fixture.shortTtl());
		Waiter<Void> stranger = fixture.inAnotherThread(() -> {
			registry.renewLock(key, LONG_TTL);
			return null;
		});
		assertThat(stranger.failure()).isInstanceOf(IllegalStateException.class);
		RenewableLockRegistry<DistributedLock> otherInstance = fixture.newRegistry(UNRENEWED);
		assertThatIllegalStateException().isThrownBy(() -> otherInstance.renewLock(key, LONG_TTL));
		assertThatIllegalStateException().isThrownBy(() -> registry.renewLock(fixture.uniqueKey("never-locked")));
		// Neither renewal changed the holder's time-to-live
		DistributedLock taker = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		fixture.awaitTrue("Taking over " + key, taker::tryLock);
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
		taker.unlock();
	}

	@Test
	default void renewLockOfALockThatExpiredAndWasTakenOverThrowsIllegalStateAndLeavesTheNewHolder() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("renew-lost");
		RenewableLockRegistry<DistributedLock> registry = fixture
			.newRegistry(LockOptions.ttl(fixture.shortTtl()).withRenewal(false));
		DistributedLock expired = registry.obtain(key);
		DistributedLock taker = fixture.newRegistry(LockOptions.ttl(fixture.shortTtl()).withRenewal(false)).obtain(key);
		expired.lock();
		fixture.awaitTrue("Taking over " + key, taker::tryLock);
		assertThatIllegalStateException().isThrownBy(() -> registry.renewLock(key, LONG_TTL));
		// The new holder's lock still expires at the end of its own time-to-live, long
		// before the renewal's
		fixture.awaitExpired(key);
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(expired::unlock);
		fixture.assertFree(key);
	}

	@Test
	default void conditionsAreNotSupported() {
		AdapterUnderTest fixture = adapterUnderTest();
		DistributedLock lock = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(fixture.uniqueKey("condition"));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(lock::newCondition);
	}

	@Test
	default void executeLockedRunsTheTaskWhileHoldingTheLock() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("execute");
		RenewableLockRegistry<DistributedLock> registry = fixture.newRegistry(LockOptions.ttl(LONG_TTL));
		String result = registry.executeLocked(key, () -> {
			fixture.assertHeld(key);
			return "done";
		});
		assertThat(result).isEqualTo("done");
		fixture.assertFree(key);
		String waited = registry.executeLocked(key, Duration.ofSeconds(1), () -> {
			fixture.assertHeld(key);
			return "waited";
		});
		assertThat(waited).isEqualTo("waited");
		fixture.assertFree(key);
	}

	@Test
	default void executeLockedWithAWaitTimesOutWithoutRunningTheTaskWhileAnotherInstanceHoldsTheLock() {
		AdapterUnderTest fixture = adapterUnderTest();
		String key = fixture.uniqueKey("execute-timeout");
		DistributedLock holder = fixture.newRegistry(LockOptions.ttl(LONG_TTL)).obtain(key);
		RenewableLockRegistry<DistributedLock> other = fixture.newRegistry(LockOptions.ttl(LONG_TTL));
		holder.lock();
		AtomicBoolean ran = new AtomicBoolean();
		assertThatExceptionOfType(TimeoutException.class)
			.isThrownBy(() -> other.executeLocked(key, Duration.ofMillis(100), () -> ran.set(true)));
		assertThat(ran).isFalse();
		fixture.assertHeld(key);
		holder.unlock();
	}

}
