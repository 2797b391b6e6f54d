package dev.lockstarter.integration;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

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
 * of keys were obtained, and by {@link #expireUnusedOlderThan(long)}.
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

	private final Map<String, RegistryLock> locks = new ConcurrentHashMap<>();

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
		RegistryLock lock = this.locks.computeIfAbsent(key, (k) -> new RegistryLock(this.operations, k, this.options));
		lock.obtainedAt = System.nanoTime();
		if (this.locks.size() > this.capacity) {
			this.locks.values().removeIf((candidate) -> candidate != lock && !candidate.isInUse());
		}
		return lock;
	}

	/**
	 * Drop the locks that no thread of this process holds or waits for and that were last
	 * obtained longer ago than {@code age}; a later {@link #obtain} of their keys makes
	 * new ones.
	 * @param age the age in milliseconds
	 */
	@Override
	public void expireUnusedOlderThan(long age) {
		long now = System.nanoTime();
		long ageNanos = Duration.ofMillis(age).toNanos();
		this.locks.values().removeIf((lock) -> now - lock.obtainedAt >= ageNanos && !lock.isInUse());
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
		if (lock == null || !lock.isHeldByCurrentThread()) {
			throw new IllegalStateException(
					"Lock '" + lockKey + "' is not held by the current thread: it cannot be renewed");
		}
		if (!lock.lease().extend(ttl)) {
			throw new IllegalStateException(
					"Lock '" + lockKey + "' had expired or was taken over: it cannot be renewed");
		}
	}

	@Override
	public String toString() {
		return "LockOperationsLockRegistry[" + this.locks.size() + " keys, " + this.options + "]";
	}

}
