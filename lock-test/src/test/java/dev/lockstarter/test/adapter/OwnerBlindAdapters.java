package dev.lockstarter.test.adapter;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * Adapters that ignore ownership, for the negative controls of the adapter suite. They
 * take the lock in the store when it is free, so a lone holder looks right, but every
 * attempt reports success whether or not another owner holds the lock, and release,
 * renewal and extension never check who asks.
 */
final class OwnerBlindAdapters {

	private OwnerBlindAdapters() {
	}

	/**
	 * A lock whose acquisitions always succeed; shared by the threads of an instance, it
	 * keeps the last lease it got and releases it for whoever unlocks.
	 */
	static final class OwnerBlindLock implements DistributedLock {

		private final LockOperations operations;

		private final String key;

		private final LockOptions options;

		private volatile @Nullable Lease lease;

		OwnerBlindLock(LockOperations operations, String key, LockOptions options) {
			this.operations = operations;
			this.key = key;
			this.options = options;
		}

		@Override
		public boolean tryLock() {
			return take(this.options.getTtl());
		}

		private boolean take(Duration ttl) {
			LockAttempt attempt = this.operations.tryAcquire(this.key, ttl);
			if (attempt.isAcquired()) {
				this.lease = attempt.lease();
			}
			return true;
		}

		@Override
		public void lock() {
			tryLock();
		}

		@Override
		public void lockInterruptibly() {
			tryLock();
		}

		@Override
		public boolean tryLock(long time, TimeUnit unit) {
			return tryLock();
		}

		@Override
		public void lock(Duration ttl) {
			take(ttl);
		}

		@Override
		public boolean tryLock(Duration waitTime, Duration ttl) {
			return take(ttl);
		}

		@Override
		public void unlock() {
			Lease held = this.lease;
			this.lease = null;
			if (held != null) {
				held.release();
			}
		}

		@Override
		public Condition newCondition() {
			throw new UnsupportedOperationException("No conditions");
		}

	}

	/** A registry of {@link OwnerBlindLock}s; renewal does nothing and never refuses. */
	static final class OwnerBlindLockRegistry implements RenewableLockRegistry<DistributedLock> {

		private final Map<String, OwnerBlindLock> locks = new ConcurrentHashMap<>();

		private final LockOperations operations;

		private final LockOptions options;

		OwnerBlindLockRegistry(LockOperations operations, LockOptions options) {
			this.operations = operations;
			this.options = options;
		}

		@Override
		public DistributedLock obtain(Object lockKey) {
			if (!(lockKey instanceof String key)) {
				throw new IllegalArgumentException("Keys are strings");
			}
			return this.locks.computeIfAbsent(key, (k) -> new OwnerBlindLock(this.operations, k, this.options));
		}

		@Override
		public void renewLock(Object lockKey) {
		}

		@Override
		public void renewLock(Object lockKey, Duration ttl) {
		}

	}

	/** A provider whose every lock succeeds and whose handles never turn invalid. */
	static final class OwnerBlindLockProvider implements ExtensibleLockProvider {

		private final LockOperations operations;

		OwnerBlindLockProvider(LockOperations operations) {
			this.operations = operations;
		}

		@Override
		public Optional<SimpleLock> lock(LockConfiguration configuration) {
			LockAttempt attempt = this.operations.tryAcquire(configuration.getName(),
					LockOptions.ttl(configuration.getLockAtMostFor()).withRenewal(false));
			return Optional.of(new OwnerBlindSimpleLock(attempt.isAcquired() ? attempt.lease() : null));
		}

		private record OwnerBlindSimpleLock(@Nullable Lease lease) implements SimpleLock {

			@Override
			public void unlock() {
				if (this.lease != null) {
					this.lease.release();
				}
			}

			@Override
			public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
				return Optional.of(this);
			}

		}

	}

}
