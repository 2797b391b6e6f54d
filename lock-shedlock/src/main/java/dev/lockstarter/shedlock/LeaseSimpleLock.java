package dev.lockstarter.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockOptions;

/**
 * A ShedLock {@link SimpleLock} over one {@link Lease}. ShedLock's base class makes a
 * handle refuse any use after its {@code unlock} or {@code extend}; an extension hands
 * the same lease to a new handle.
 */
final class LeaseSimpleLock extends AbstractSimpleLock {

	private final Lease lease;

	LeaseSimpleLock(LockConfiguration lockConfiguration, Lease lease) {
		super(lockConfiguration);
		this.lease = lease;
	}

	/**
	 * Release the lease: it deletes the lock, or keeps it until {@code lockAtLeastFor}
	 * ends.
	 */
	@Override
	protected void doUnlock() {
		this.lease.release();
	}

	/**
	 * Extend the lease to the new {@code lockAtMostFor}, keeping the lock at least for
	 * the new {@code lockAtLeastFor}: an empty answer if the lock had expired or was
	 * taken.
	 */
	@Override
	protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
		Instant now = Instant.now();
		Duration ttl = LockOperationsLockProvider.remaining(now, newConfiguration.getLockAtMostUntil(),
				LockOptions.MIN_TTL);
		Duration holdAtLeast = LockOperationsLockProvider.remaining(now, newConfiguration.getLockAtLeastUntil(),
				Duration.ZERO);
		if (!this.lease.extend(ttl, LockOperationsLockProvider.min(holdAtLeast, ttl))) {
			return Optional.empty();
		}
		return Optional.of(new LeaseSimpleLock(newConfiguration, this.lease));
	}

}
