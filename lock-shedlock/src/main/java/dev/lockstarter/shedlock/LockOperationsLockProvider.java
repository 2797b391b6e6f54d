package dev.lockstarter.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTtlTooShortException;
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
 * <p>
 * A {@code lockAtMostFor} shorter than the store takes to confirm the lock is a promise
 * kept: the lock is handed out as one that has already expired, as ShedLock's own
 * providers do, so the task runs, its extension answers empty and its unlock frees
 * nothing (the engine has released the late grant by its token). Each such grant is
 * logged as a warning naming the time the store took.
 *
 * @since 0.1.0
 */
public class LockOperationsLockProvider implements ExtensibleLockProvider {

	private static final Log logger = LogFactory.getLog(LockOperationsLockProvider.class);

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
		Duration ttl = remaining(now, lockConfiguration.getLockAtMostUntil(), LockOptions.MIN_TTL);
		Duration holdAtLeast = remaining(now, lockConfiguration.getLockAtLeastUntil(), Duration.ZERO);
		LockOptions options = LockOptions.ttl(ttl)
			.withRenewal(false)
			.withHoldAtLeast(min(holdAtLeast, ttl))
			.withName(lockConfiguration.getName());
		LockAttempt attempt;
		try {
			attempt = this.operations.tryAcquire(lockConfiguration.getName(), options);
		}
		catch (LockTtlTooShortException ex) {
			logger.warn(ex.getMessage() + "; ShedLock runs the task with a lock that has already expired, as "
					+ "lockAtMostFor allows: a longer lockAtMostFor keeps it locked");
			return Optional.of(new ExpiredSimpleLock(lockConfiguration));
		}
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
