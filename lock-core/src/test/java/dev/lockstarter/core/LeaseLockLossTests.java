package dev.lockstarter.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingConsumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A {@link LeaseLock} whose lease was lost while a thread held it: a re-entry reports the
 * loss instead of taking the key again, and a hold that the thread never gives back keeps
 * no lease taken above it. Each lock stands for an instance of its own (a template of its
 * own on one in-memory store); a lease is lost by letting a lock taken without renewal
 * expire, and every wait is for a condition.
 */
class LeaseLockLossTests {

	private static final Duration SHORT_TTL = Duration.ofMillis(200);

	private static final Duration FIRST_TTL = Duration.ofSeconds(5);

	private static final Duration LONG_TTL = Duration.ofSeconds(30);

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private final InMemoryLockStore store = new InMemoryLockStore();

	private final List<LockTemplate> instances = new ArrayList<>();

	private final LockTemplate observer = newInstance();

	private final String key = "lease-lock-" + UUID.randomUUID();

	private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

	@AfterEach
	void destroyInstances() {
		this.otherThread.shutdownNow();
		this.instances.forEach(LockTemplate::destroy);
	}

	static Stream<Arguments> reentries() {
		return Stream.of(reentry("lock()", LeaseLock::lock), reentry("lock(ttl)", (lock) -> lock.lock(LONG_TTL)),
				reentry("lockInterruptibly()", LeaseLock::lockInterruptibly), reentry("tryLock()", LeaseLock::tryLock),
				reentry("tryLock(time, unit)", (lock) -> lock.tryLock(50, TimeUnit.MILLISECONDS)),
				reentry("tryLock(waitTime, ttl)", (lock) -> lock.tryLock(Duration.ofMillis(50), LONG_TTL)));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("reentries")
	void reentryAfterTheLeaseExpiredThrowsLockNotHeldAndTakesNothingThoughTheKeyIsFree(String name,
			ThrowingConsumer<LeaseLock> reentry) throws Exception {
		LeaseLock lock = newLock();
		lock.lock(SHORT_TTL);
		Lease lost = lock.lease();
		await().atMost(DEADLINE).until(() -> this.observer.timeToExpiry(this.key).isZero());
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> reentry.accept(lock))
			.withMessageContaining(this.key);
		assertThat(keyIsFree()).isTrue();
		// The thread keeps the hold it took before the loss, with the lost lease
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(lock.lease()).isSameAs(lost);
		assertThat(freeForAnotherThread(lock)).as("another thread's tryLock before the hold is given back").isFalse();
		assertThatExceptionOfType(LockNotHeldException.class).as("unlock of the hold that took the lost lease")
			.isThrownBy(lock::unlock);
		assertThat(freeForAnotherThread(lock)).as("another thread's tryLock once the hold is given back").isTrue();
	}

	@Test
	void reentryAfterAnotherInstanceTookTheKeyOverThrowsLockNotHeldAndLeavesTheNewHolder() throws Exception {
		LeaseLock taker = newLock();
		LeaseLock lock = lockedUntilTakenOverBy(taker);
		assertThatExceptionOfType(LockNotHeldException.class)
			.isThrownBy(() -> lock.tryLock(100, TimeUnit.MILLISECONDS));
		assertThat(keyIsFree()).isFalse();
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(lock::unlock);
		assertThat(keyIsFree()).isFalse();
		taker.unlock();
		assertThat(keyIsFree()).isTrue();
	}

	@Test
	void holdKeptAfterALossNeverKeepsTheLeaseTakenAboveIt() throws Exception {
		LeaseLock other = newLock();
		// A hold the thread will not give back before it locks again
		LeaseLock lock = lockedUntilTakenOverBy(other);
		catchThrowable(() -> lock.tryLock(0, TimeUnit.MILLISECONDS));
		other.unlock();
		// Locked again above the kept hold: a new lease, at the new hold's depth
		assertThat(lock.tryLock(Duration.ZERO, LONG_TTL)).as("locked again").isTrue();
		Lease renewed = lock.lease();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(lock.tryLock(Duration.ZERO, LONG_TTL)).as("re-entry above it").isTrue();
		assertThat(lock.lease()).isSameAs(renewed);
		lock.unlock();
		assertThat(keyIsFree()).isFalse();
		// The unlock of the hold that took the new lease releases it, though the older
		// hold is still counted
		lock.unlock();
		assertThat(keyIsFree()).as("the key, once the hold that took the new lease is given back").isTrue();
		assertThat(freeForAnotherThread(lock)).as("another thread's tryLock while the older hold is kept").isFalse();
		assertThatExceptionOfType(LockNotHeldException.class).as("unlock of the older hold").isThrownBy(lock::unlock);
		assertThat(freeForAnotherThread(lock)).as("another thread's tryLock once every hold is given back").isTrue();
		assertThat(keyIsFree()).isTrue();
	}

	@Test
	void reentryWhileTheLeaseIsHeldExtendsItAndOnlyTheOutermostUnlockReleasesIt() throws Exception {
		LeaseLock lock = newLock();
		lock.lock(FIRST_TTL);
		Lease lease = lock.lease();
		lock.lockInterruptibly();
		assertThat(lock.tryLock(Duration.ZERO, LONG_TTL)).isTrue();
		assertThat(lock.lease()).isSameAs(lease);
		lock.unlock();
		lock.unlock();
		// Extended to the long time-to-live
		assertThat(this.observer.timeToExpiry(this.key)).isGreaterThan(FIRST_TTL);
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(keyIsFree()).isTrue();
		assertThat(lease.isHeld()).isFalse();
	}

	private static Arguments reentry(String name, ThrowingConsumer<LeaseLock> reentry) {
		return Arguments.of(name, reentry);
	}

	private LockTemplate newInstance() {
		LockTemplate template = new LockTemplate(this.store);
		this.instances.add(template);
		return template;
	}

	private LeaseLock newLock() {
		return newInstance().lock(this.key, LockOptions.ttl(LONG_TTL).withRenewal(false));
	}

	/**
	 * Return a lock that the current thread holds, once its lease expired and the taker
	 * took the key.
	 */
	private LeaseLock lockedUntilTakenOverBy(LeaseLock taker) {
		LeaseLock lock = newLock();
		lock.lock(SHORT_TTL);
		await().atMost(DEADLINE).pollInSameThread().until(taker::tryLock);
		return lock;
	}

	/** Whether another owner gets the key now; it gives the key back at once. */
	private boolean keyIsFree() {
		LockAttempt attempt = this.observer.tryAcquire(this.key, LONG_TTL);
		if (!attempt.isAcquired()) {
			return false;
		}
		attempt.lease().release();
		return true;
	}

	/** Whether another thread of the instance gets the lock; it unlocks it at once. */
	private boolean freeForAnotherThread(LeaseLock lock) throws Exception {
		Future<Boolean> tried = this.otherThread.submit(() -> {
			boolean acquired = lock.tryLock();
			if (acquired) {
				lock.unlock();
			}
			return acquired;
		});
		return tried.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
	}

}
