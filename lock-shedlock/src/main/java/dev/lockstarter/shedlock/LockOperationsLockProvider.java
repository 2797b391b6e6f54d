package dev.lockstarter.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import org.springframework.util.Assert;

/**
 * ShedLock's {@link ExtensibleLockProvider} over a {@link LockOperations}, so that
 * {@code @SchedulerLock} and ShedLock's {@code LockingTaskExecutor} lock in any of the
 * starter's stores.
 * <p>
 * The lock's key is the lock's name unchanged, the key of an
 * {@code @ExclusiveJob(name = ...)} of the same name, so that the two exclude each other.
 * {@code lockAtMostFor} is the lock's time-to-live, counted from the configuration's
 * creation and never renewed; {@code lockAtLeastFor} its minimum hold: an
 * {@code unlock()} before then shortens the lock to what remains. A lock that cannot be
 * taken because another owner holds it gives an empty {@code Optional}; a store that
 * cannot be reached throws, so the task does not run.
 *
 * @since 0.1.0
 */
public class LockOperationsLockProvider implements ExtensibleLockProvider {

	/** The shortest time-to-live given to the store, for a configuration about to end. */
	private static final Duration MIN_TTL = Duration.ofMillis(1);

	private final LockOperations operations;

	/**
	 * Create a provider.
	 * @param operations the operations that take the locks
	 */
	public LockOperationsLockProvider(LockOperations operations) {
		Assert.notNull(operations, "'operations' must not be null");
		this.operations = operations;
	}

	@Override
	public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
		Assert.notNull(lockConfiguration, "'lockConfiguration' must not be null");
		Instant now = Instant.now();
		Duration ttl = remaining(now, lockConfiguration.getLockAtMostUntil(), MIN_TTL);
		Duration holdAtLeast = remaining(now, lockConfiguration.getLockAtLeastUntil(), Duration.ZERO);
		LockOptions options = LockOptions.ttl(ttl)
			.withRenewal(false)
			.withHoldAtLeast(min(holdAtLeast, ttl))
			.withName(lockConfiguration.getName());
		LockAttempt attempt = this.operations.tryAcquire(lockConfiguration.getName(), options);
		return attempt.isAcquired() ? Optional.of(new LeaseSimpleLock(lockConfiguration, attempt.lease()))
				: Optional.empty();
	}

	static Duration remaining(Instant now, Instant until, Duration atLeast) {
		Duration left = Duration.between(now, until);
		return (left.compareTo(atLeast) < 0) ? atLeast : left;
	}

	static Duration min(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
	}

	@Override
	public String toString() {
		return "LockOperationsLockProvider[" + this.operations + "]";
	}

}
