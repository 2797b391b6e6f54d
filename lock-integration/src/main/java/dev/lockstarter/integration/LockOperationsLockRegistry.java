package dev.lockstarter.integration;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.LeaseLock;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.util.Assert;

/**
 * Spring Integration's {@link RenewableLockRegistry} over a {@link LockOperations}: its
 * {@link DistributedLock}s are {@link LeaseLock}s, reentrant and owned by a thread, on
 * the keys given to {@link #obtain(Object)} unchanged, so that {@code obtain("order:7")}
 * excludes {@code lockOperations.acquire("order:7", ...)} and an
 * {@code @ExclusiveRequest} on the same key, on every instance.
 * <p>
 * {@code obtain} returns the same lock object for a key for as long as a thread of this
 * process holds it or waits for it. Locks no thread uses are dropped once more than
 * {@linkplain #LockOperationsLockRegistry(LockOperations, LockOptions, int) a capacity}
 * of keys were obtained, and by {@link #expireUnusedOlderThan(long)}. A dropped lock that
 * a caller kept (as {@code LockRegistryLeaderInitiator} keeps its lock) is never a second
 * lock for its key: used again, it returns to the registry if the key has no lock there,
 * or acts as the key's lock if it has one.
 * <p>
 * A lock's lease is released by the {@code unlock()} that ends the hold which took it,
 * and a re-entry that finds the lease lost throws
 * {@link java.util.ConcurrentModificationException} instead of taking the lock again: see
 * the reference guide for what happens when a holder is paused past its time-to-live.
 * <p>
 * The options give each acquisition its time-to-live and renewal: with renewal (the
 * default), a lock is kept alive while it is held, and {@link #renewLock} is needed only
 * for a lock taken without it. {@link #setRenewalTaskScheduler} changes nothing: the
 * template's shared renewer does that work.
 *
 * @since 0.1.0
 */
public class LockOperationsLockRegistry
		implements RenewableLockRegistry<DistributedLock>, ExpirableLockRegistry<DistributedLock> {

	/** The number of keys kept before locks no thread uses are dropped. */
	public static final int DEFAULT_CAPACITY = 100_000;

	private final LockOperations operations;

	private final LockOptions options;

	private final int capacity;

	private final ConcurrentMap<String, RegistryLock> locks = new ConcurrentHashMap<>();

	/**
	 * Create a registry that keeps up to {@link #DEFAULT_CAPACITY} keys.
	 * @param operations the operations that take the locks
	 * @param options the time-to-live, renewal and name of each acquisition
	 */
	public LockOperationsLockRegistry(LockOperations operations, LockOptions options) {
		this(operations, options, DEFAULT_CAPACITY);
	}

	/**
	 * Create a registry.
	 * @param operations the operations that take the locks
	 * @param options the time-to-live, renewal and name of each acquisition; their wait
	 * time is not used, each method of a lock says how long it waits
	 * @param capacity the number of keys kept before locks that no thread uses are
	 * dropped, positive
	 */
	public LockOperationsLockRegistry(LockOperations operations, LockOptions options, int capacity) {
		Assert.notNull(operations, "'operations' must not be null");
		Assert.notNull(options, "'options' must not be null");
		Assert.isTrue(capacity > 0, "'capacity' must be positive");
		this.operations = operations;
		this.options = options;
		this.capacity = capacity;
	}

	/**
	 * Return the lock on a key.
	 * @param lockKey the key, a {@code String}, not blank
	 * @return the lock, the same object while a thread of this process holds it
	 * @throws IllegalArgumentException if the key is not a {@code String} or is blank
	 */
	@Override
	public DistributedLock obtain(Object lockKey) {
		Assert.isInstanceOf(String.class, lockKey, "Lock keys of this registry are strings: ");
		String key = (String) lockKey;
		Assert.hasText(key, "'lockKey' must not be blank");
		RegistryLock lock = this.locks.computeIfAbsent(key,
				(k) -> new RegistryLock(this, this.operations, k, this.options));
		lock.obtainedAt = System.nanoTime();
		if (this.locks.size() > this.capacity) {
			for (RegistryLock candidate : this.locks.values()) {
				if (candidate != lock) {
					drop(candidate);
				}
			}
		}
		return lock;
	}

	/**
	 * Drop the locks that no thread of this process holds or waits for and that were last
	 * obtained longer ago than {@code age}; a later {@link #obtain} of their keys makes
	 * new ones, unless a dropped lock that a caller kept is used first, which takes it
	 * back.
	 * @param age the age in milliseconds
	 */
	@Override
	public void expireUnusedOlderThan(long age) {
		long now = System.nanoTime();
		long ageNanos = Duration.ofMillis(age).toNanos();
		for (RegistryLock lock : this.locks.values()) {
			if (now - lock.obtainedAt >= ageNanos) {
				drop(lock);
			}
		}
	}

	/**
	 * Reset the time-to-live of a lock the current thread holds to the options'
	 * time-to-live, counted from now.
	 * @param lockKey the key
	 * @throws IllegalStateException if the current thread does not hold the lock, or it
	 * had expired or was taken over
	 */
	@Override
	public void renewLock(Object lockKey) {
		renewLock(lockKey, this.options.getTtl());
	}

	/**
	 * Reset the time-to-live of a lock the current thread holds, counted from now.
	 * @param lockKey the key
	 * @param ttl the new time-to-live, positive
	 * @throws IllegalStateException if the current thread does not hold the lock, or it
	 * had expired or was taken over
	 */
	@Override
	public void renewLock(Object lockKey, Duration ttl) {
		RegistryLock lock = this.locks.get(lockKey);
		if (lock == null) {
			throw RegistryLock.notHeldForRenewal(lockKey);
		}
		lock.renew(ttl);
	}

	/**
	 * Return the lock of a key in this registry, if it has one.
	 * @param key the key
	 * @return the lock, or {@code null}
	 */
	@Nullable RegistryLock mapped(String key) {
		return this.locks.get(key);
	}

	/**
	 * Return the lock of a dropped lock's key: the dropped lock itself, taken back, if
	 * the key has no lock, else the key's lock.
	 * @param dropped a lock that this registry dropped
	 * @return the key's lock
	 */
	RegistryLock current(RegistryLock dropped) {
		return this.locks.compute(dropped.key(), (key, mapped) -> {
			if (mapped != null && mapped != dropped) {
				return mapped;
			}
			dropped.undrop();
			return dropped;
		});
	}

	/**
	 * Remove a lock from the map if no thread holds it or is taking it; atomic for its
	 * key, so that a lock is in the map exactly while it is not dropped.
	 */
	private void drop(RegistryLock lock) {
		this.locks.computeIfPresent(lock.key(), (key, mapped) -> (mapped == lock && lock.drop()) ? null : mapped);
	}

	@Override
	public String toString() {
		return "LockOperationsLockRegistry[" + this.locks.size() + " keys, " + this.options + "]";
	}

}
