package dev.lockstarter.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.core.LeaseLock;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.integration.support.locks.DistributedLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lock that the registry dropped as unused while a caller kept it, between
 * {@code obtain} and {@code lock} (as {@code LockRegistryLeaderInitiator} keeps its lock
 * for as long as it runs): it never becomes a second lock object for its key beside the
 * registry's, which would not exclude the threads of this instance from each other nor
 * let the holding thread re-enter through {@code obtain}.
 */
class RegistryEvictionTests {

	private static final LockOptions OPTIONS = LockOptions.ttl(Duration.ofSeconds(30));

	private final InMemoryLockStore store = new InMemoryLockStore();

	private final List<LockTemplate> instances = new ArrayList<>();

	private final LockTemplate observer = newInstance();

	private final String key = "evicted-" + UUID.randomUUID();

	@AfterEach
	void destroyInstances() {
		this.instances.forEach(LockTemplate::destroy);
	}

	@Test
	void lockDroppedBeforeItWasLockedIsTheRegistrysLockForItsKeyOnceLocked() throws Exception {
		LockOperationsLockRegistry registry = new LockOperationsLockRegistry(newInstance(), OPTIONS, 1);
		DistributedLock lock = registry.obtain(this.key);
		// Over the capacity of one key: the unused lock is dropped
		registry.obtain("other-" + UUID.randomUUID());
		lock.lock();
		assertThat(registry.obtain(this.key)).isSameAs(lock);
		assertOneLockForTheKey(registry);
		lock.unlock();
		assertFree();
	}

	@Test
	void lockDroppedAndReplacedActsAsTheReplacement() throws Exception {
		LockOperationsLockRegistry registry = new LockOperationsLockRegistry(newInstance(), OPTIONS);
		DistributedLock dropped = registry.obtain(this.key);
		registry.expireUnusedOlderThan(-1);
		DistributedLock replacement = registry.obtain(this.key);
		dropped.lock();
		assertOneLockForTheKey(registry);
		assertThat(dropped.tryLock()).as("re-entry through the dropped lock").isTrue();
		dropped.unlock();
		assertThat(inAnotherThread(dropped)).as("another thread's tryLock of the dropped lock").isFalse();
		assertHeld();
		dropped.unlock();
		assertFree();
		assertThat(inAnotherThread(replacement)).isTrue();
		assertThat(inAnotherThread(dropped)).isTrue();
	}

	@Test
	void locksDroppedWhileThreadsComeAndGoAreNeverTwoForAKey() throws Exception {
		LockOperationsLockRegistry registry = new LockOperationsLockRegistry(newInstance(), OPTIONS, 2);
		List<String> keys = List.of(this.key + "-a", this.key + "-b", this.key + "-c");
		// Locks obtained once and kept, as a leader initiator keeps its lock
		List<DistributedLock> kept = keys.stream().map(registry::obtain).toList();
		AtomicBoolean done = new AtomicBoolean();
		// Threads of their own: a common pool of one thread would run the dropper alone
		ExecutorService threads = Executors.newFixedThreadPool(5);
		CompletableFuture<Void> dropper = CompletableFuture.runAsync(() -> {
			while (!done.get()) {
				registry.expireUnusedOlderThan(-1);
			}
		}, threads);
		List<CompletableFuture<Void>> workers = new ArrayList<>();
		for (int worker = 0; worker < 4; worker++) {
			workers.add(CompletableFuture.runAsync(() -> {
				for (int i = 0; i < 2000; i++) {
					int k = ThreadLocalRandom.current().nextInt(keys.size());
					DistributedLock lock = ThreadLocalRandom.current().nextBoolean() ? kept.get(k)
							: registry.obtain(keys.get(k));
					if (lock.tryLock()) {
						try {
							assertThat(((LeaseLock) registry.obtain(keys.get(k))).isHeldByCurrentThread())
								.as("the registry's lock for the key, held through %s", lock)
								.isTrue();
						}
						finally {
							lock.unlock();
						}
					}
				}
			}, threads));
		}
		try {
			CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		}
		finally {
			done.set(true);
			dropper.get(10, TimeUnit.SECONDS);
			threads.shutdownNow();
		}
		for (String key : keys) {
			LockAttempt attempt = this.observer.tryAcquire(key, OPTIONS);
			assertThat(attempt.isAcquired()).as("%s free at the end", key).isTrue();
			attempt.lease().release();
		}
	}

	/** The current thread holds the key's lock, through whichever object it took it. */
	private void assertOneLockForTheKey(LockOperationsLockRegistry registry) throws Exception {
		// The holding thread re-enters through obtain, and may renew the lock
		DistributedLock again = registry.obtain(this.key);
		assertThat(again.tryLock()).as("re-entry through obtain").isTrue();
		again.unlock();
		registry.renewLock(this.key);
		// Another thread of the instance is excluded by the instance's one lock
		assertThat(inAnotherThread(registry.obtain(this.key))).as("another thread's tryLock").isFalse();
		assertHeld();
	}

	private LockTemplate newInstance() {
		LockTemplate template = new LockTemplate(this.store);
		this.instances.add(template);
		return template;
	}

	private void assertHeld() {
		LockAttempt attempt = this.observer.tryAcquire(this.key, OPTIONS);
		if (attempt.isAcquired()) {
			attempt.lease().release();
		}
		assertThat(attempt.isAcquired()).as("another owner acquired %s, which should be held", this.key).isFalse();
	}

	private void assertFree() {
		LockAttempt attempt = this.observer.tryAcquire(this.key, OPTIONS);
		assertThat(attempt.isAcquired()).as("another owner acquired %s, which should be free", this.key).isTrue();
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
		}).orTimeout(10, TimeUnit.SECONDS).join();
	}

}
