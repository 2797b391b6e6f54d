package dev.lockstarter.test.adapter;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.test.adapter.AdapterUnderTest.Waiter;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

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
 * {@code RedisLockRegistry} does beyond the {@link LockContract} (which runs its locks as
 * {@link LockFactory#DISTRIBUTED_LOCK}): one lock per key while held, time-to-lives of a
 * lock, {@code renewLock} and {@code executeLocked}. Each test uses registries of two or
 * more instances on the one store.
 */
interface DistributedLockContract extends AdapterContract {

	/** Options of a registry whose locks outlive the test and are not renewed. */
	LockOptions UNRENEWED = LockOptions.ttl(LONG_TTL).withRenewal(false);

	@Test
	default void registryReturnsTheSameLockForAKeyWhileItIsHeld() throws Exception {
		AdapterUnderTest fixture = adapterUnderTest();
		RenewableLockRegistry<DistributedLock> registry = fixture.newRegistry(LockOptions.ttl(LONG_TTL));
		String key = fixture.uniqueKey("same");
		DistributedLock lock = registry.obtain(key);
		lock.lock();
		try {
			assertThat(registry.obtain(key)).isSameAs(lock);
			assertThat(registry.obtain(fixture.uniqueKey("other"))).isNotSameAs(lock);
			assertThat(fixture.inAnotherThread(() -> registry.obtain(key)).get()).as("the lock of another thread")
				.isSameAs(lock);
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
