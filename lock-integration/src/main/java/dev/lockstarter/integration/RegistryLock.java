package dev.lockstarter.integration;

import java.util.ConcurrentModificationException;

import dev.lockstarter.core.LeaseLock;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * A {@link LeaseLock} as Spring Integration's {@link DistributedLock}: its
 * {@code lock(Duration)} and {@code tryLock(Duration, Duration)} are the lease lock's.
 * The last {@code unlock()} of a lock that expired and was taken over throws
 * {@link ConcurrentModificationException}, as {@code RedisLockRegistry}'s locks do.
 */
final class RegistryLock extends LeaseLock implements DistributedLock {

	/** Monotonic time of the last {@code obtain} that returned this lock. */
	volatile long obtainedAt = System.nanoTime();

	RegistryLock(LockOperations operations, String key, LockOptions options) {
		super(operations, key, options);
	}

	@Override
	protected RuntimeException lostBeforeUnlock() {
		return new ConcurrentModificationException("Lock '" + key() + "' had expired or was taken over before its "
				+ "release; the integrity of the data it guarded may have been compromised");
	}

}
