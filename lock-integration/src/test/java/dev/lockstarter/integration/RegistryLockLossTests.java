package dev.lockstarter.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingConsumer;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.integration.support.locks.DistributedLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * What a registry's lock does once its lease was lost while a thread held it, as happens
 * to a leader paused past its time-to-live: a re-entry reports the loss instead of taking
 * the lock again, and a hold that the holder never gives back (as
 * {@code LockRegistryLeaderInitiator} leaves one when a heartbeat fails) never keeps the
 * store's lock. The lease is lost by letting a lock taken without renewal expire, on the
 * in-memory store; every wait is for a condition.
 */
class RegistryLockLossTests {

	private static final Duration SHORT_TTL = Duration.ofMillis(200);

	private static final Duration LONG_TTL = Duration.ofSeconds(30);

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private static final LockOptions UNRENEWED = LockOptions.ttl(LONG_TTL).withRenewal(false);

	private final InMemoryLockStore store = new InMemoryLockStore();

	private final List<LockTemplate> instances = new ArrayList<>();

	private final LockTemplate observer = newInstance();

	private final String key = "loss-" + UUID.randomUUID();

	@AfterEach
	void destroyInstances() {
		this.instances.forEach(LockTemplate::destroy);
	}

	@Test
	void reentryAfterTheLeaseExpiredThrowsEvenThoughTheKeyIsFree() {
		Map<String, ThrowingConsumer<DistributedLock>> reentries = new LinkedHashMap<>();
		reentries.put("tryLock()", DistributedLock::tryLock);
		reentries.put("tryLock(time, unit)", (lock) -> lock.tryLock(50, TimeUnit.MILLISECONDS));
		reentries.put("tryLock(waitTime, ttl)", (lock) -> lock.tryLock(Duration.ofMillis(50), LONG_TTL));
		reentries.put("lock()", DistributedLock::lock);
		reentries.put("lock(ttl)", (lock) -> lock.lock(LONG_TTL));
		reentries.put("lockInterruptibly()", DistributedLock::lockInterruptibly);
		reentries.forEach((name, reentry) -> {
			String key = this.key + "-" + name;
			DistributedLock lock = newRegistry().obtain(key);
			lock.lock(SHORT_TTL);
			awaitExpired(key);
			assertThatExceptionOfType(ConcurrentModificationException.class).as(name)
				.isThrownBy(() -> reentry.accept(lock))
				.withMessageContaining(key);
			// The re-entry took the key neither in the store nor in this instance
			assertFree(key);
			// The hold taken before the loss is still the thread's, and its unlock
			// reports
			// the loss too
			assertThatExceptionOfType(ConcurrentModificationException.class).as(name).isThrownBy(lock::unlock);
			assertThat(inAnotherThread(lock)).as("another thread's tryLock once the holder unlocked, after %s", name)
				.isTrue();
		});
	}

	@Test
	void reentryAfterTheLockWasTakenOverThrowsAndLeavesTheNewHolder() throws Exception {
		DistributedLock lock = newRegistry().obtain(this.key);
		DistributedLock taker = newRegistry().obtain(this.key);
		lock.lock(SHORT_TTL);
		await().atMost(DEADLINE).pollInSameThread().until(taker::tryLock);
		assertThatExceptionOfType(ConcurrentModificationException.class)
			.isThrownBy(() -> lock.tryLock(100, TimeUnit.MILLISECONDS));
		assertHeld();
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
		assertHeld();
		taker.unlock();
		assertFree();
	}

	@Test
	void holdLeftAfterALossNeverKeepsTheStoreLock() throws Exception {
		DistributedLock leader = newRegistry().obtain(this.key);
		DistributedLock other = newRegistry().obtain(this.key);
		// Leading: one hold, as LockRegistryLeaderInitiator keeps it
		leader.lock(SHORT_TTL);
		// Paused past its time-to-live: another instance takes over
		await().atMost(DEADLINE).pollInSameThread().until(other::tryLock);
		// The heartbeat that finds the loss; the hold taken when leading is never
		// unlocked
		catchThrowable(() -> leader.tryLock(0, TimeUnit.MILLISECONDS));
		// The other instance yields, and the first one leads again
		other.unlock();
		assertThat(leader.tryLock(Duration.ZERO, LONG_TTL)).as("leading again").isTrue();
		// A heartbeat
		assertThat(leader.tryLock(Duration.ZERO, LONG_TTL)).as("heartbeat").isTrue();
		leader.unlock();
		// Yielding gives back the hold taken when leading again, and with it the store's
		// lock, though the older hold is still counted
		leader.unlock();
		assertFree();
		assertThat(inAnotherThread(leader)).as("another thread's tryLock while the older hold is left").isFalse();
		// That older hold's unlock reports its lost lease, and frees the lock
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(leader::unlock);
		assertThat(inAnotherThread(leader)).as("another thread's tryLock once every hold is given back").isTrue();
		assertFree();
	}

	@Test
	void reentryWhileTheLeaseIsHeldExtendsItAndOnlyTheOutermostUnlockReleases() throws Exception {
		DistributedLock lock = newRegistry().obtain(this.key);
		lock.lock(SHORT_TTL);
		assertThat(lock.tryLock(Duration.ZERO, LONG_TTL) && lock.tryLock(Duration.ZERO, LONG_TTL)).isTrue();
		lock.unlock();
		lock.unlock();
		// Extended to the long time-to-live: still held after the short one passed
		assertThat(this.observer.timeToExpiry(this.key)).isGreaterThan(SHORT_TTL);
		lock.unlock();
		assertFree();
	}

	private LockTemplate newInstance() {
		LockTemplate template = new LockTemplate(this.store);
		this.instances.add(template);
		return template;
	}

	private LockOperationsLockRegistry newRegistry() {
		return new LockOperationsLockRegistry(newInstance(), UNRENEWED);
	}

	private void awaitExpired(String key) {
		await().atMost(DEADLINE).until(() -> this.observer.timeToExpiry(key).isZero());
	}

	private void assertHeld() {
		LockAttempt attempt = this.observer.tryAcquire(this.key, LONG_TTL);
		if (attempt.isAcquired()) {
			attempt.lease().release();
		}
		assertThat(attempt.isAcquired()).as("another owner acquired %s, which should be held", this.key).isFalse();
	}

	private void assertFree() {
		assertFree(this.key);
	}

	private void assertFree(String key) {
		LockAttempt attempt = this.observer.tryAcquire(key, LONG_TTL);
		assertThat(attempt.isAcquired()).as("another owner acquired %s, which should be free", key).isTrue();
		attempt.lease().release();
	}

	/** Whether another thread of the instance gets the lock; it gives it back at once. */
	private static boolean inAnotherThread(DistributedLock lock) {
		return CompletableFuture.supplyAsync(() -> {
			boolean acquired = lock.tryLock();
			if (acquired) {
				lock.unlock();
			}
			return acquired;
		}).orTimeout(DEADLINE.toMillis(), TimeUnit.MILLISECONDS).join();
	}

}
