package dev.lockstarter.test.adapter;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;

import static dev.lockstarter.test.adapter.AdapterUnderTest.DEADLINE;
import static dev.lockstarter.test.adapter.AdapterUnderTest.EXPIRY_TOLERANCE;
import static dev.lockstarter.test.adapter.AdapterUnderTest.LONG_TTL;
import static dev.lockstarter.test.adapter.AdapterUnderTest.elapsedSince;
import static dev.lockstarter.test.adapter.AdapterUnderTest.sleepUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's lock provider contract, for an {@code ExtensibleLockProvider}: one lock per
 * name, {@code lockAtMostFor} as the time-to-live, {@code lockAtLeastFor} as the minimum
 * hold, and {@code extend}, which hands out a new lock and leaves the old handle
 * unusable. Each test uses providers of two or more instances on the one store.
 */
interface LockProviderContract extends AdapterContract {

	private static LockConfiguration config(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
		return new LockConfiguration(Instant.now(), name, lockAtMostFor, lockAtLeastFor);
	}

	private static LockConfiguration config(String name) {
		return config(name, LONG_TTL, Duration.ZERO);
	}

	private static SimpleLock present(Optional<SimpleLock> lock) {
		assertThat(lock).as("lock").isPresent();
		return lock.orElseThrow();
	}

	@Test
	default void providerLocksAFreeNameUntilUnlocked() {
		AdapterUnderTest fixture = adapterUnderTest();
		String name = fixture.uniqueKey("shedlock");
		SimpleLock lock = present(fixture.newProvider().lock(config(name)));
		fixture.assertHeld(name);
		lock.unlock();
		fixture.assertFree(name);
	}

	@Test
	default void secondLockOnTheSameNameIsEmptyInEveryInstance() {
		AdapterUnderTest fixture = adapterUnderTest();
		String name = fixture.uniqueKey("shedlock-second");
		ExtensibleLockProvider provider = fixture.newProvider();
		SimpleLock lock = present(provider.lock(config(name)));
		assertThat(provider.lock(config(name))).isEmpty();
		assertThat(fixture.newProvider().lock(config(name))).isEmpty();
		lock.unlock();
	}

	@Test
	default void nameCanBeLockedAgainRightAfterUnlock() {
		AdapterUnderTest fixture = adapterUnderTest();
		String name = fixture.uniqueKey("shedlock-again");
		ExtensibleLockProvider first = fixture.newProvider();
		ExtensibleLockProvider second = fixture.newProvider();
		for (int i = 0; i < 5; i++) {
			ExtensibleLockProvider provider = (i % 2 == 0) ? first : second;
			SimpleLock lock = present(provider.lock(config(name)));
			assertThat(first.lock(config(name))).isEmpty();
			assertThat(second.lock(config(name))).isEmpty();
			lock.unlock();
		}
		fixture.assertFree(name);
	}

	@Test
	default void namesAreIndependent() {
		AdapterUnderTest fixture = adapterUnderTest();
		String firstName = fixture.uniqueKey("shedlock-1");
		String secondName = fixture.uniqueKey("shedlock-2");
		SimpleLock first = present(fixture.newProvider().lock(config(firstName)));
		SimpleLock second = present(fixture.newProvider().lock(config(secondName)));
		first.unlock();
		fixture.assertHeld(secondName);
		second.unlock();
		fixture.assertFree(firstName);
	}

	@Test
	default void lockAtLeastForKeepsTheLockAfterUnlockUntilItPasses() {
		AdapterUnderTest fixture = adapterUnderTest();
		String name = fixture.uniqueKey("shedlock-at-least");
		Duration atLeast = fixture.slackTtl();
		long start = System.nanoTime();
		SimpleLock lock = present(fixture.newProvider().lock(config(name, LONG_TTL, atLeast)));
		lock.unlock();
		ExtensibleLockProvider other = fixture.newProvider();
		assertThat(other.lock(config(name))).as("lock before lockAtLeastFor passed").isEmpty();
		awaitLock(other, name).unlock();
		assertThat(Duration.ofNanos(elapsedSince(start))).as("time until the name was free again")
			.isGreaterThanOrEqualTo(atLeast.minus(EXPIRY_TOLERANCE));
	}

	@Test
	default void lockAtMostForExpiresTheLock() {
		AdapterUnderTest fixture = adapterUnderTest();
		String name = fixture.uniqueKey("shedlock-at-most");
		long start = System.nanoTime();
		present(fixture.newProvider().lock(config(name, fixture.slackTtl(), Duration.ZERO)));
		ExtensibleLockProvider other = fixture.newProvider();
		assertThat(other.lock(config(name))).as("lock before lockAtMostFor passed").isEmpty();
		awaitLock(other, name).unlock();
		assertThat(Duration.ofNanos(elapsedSince(start))).as("time until the name was free again")
			.isGreaterThanOrEqualTo(fixture.slackTtl().minus(EXPIRY_TOLERANCE));
	}

	@Test
	default void extendedLockOutlivesTheOriginalLockAtMostFor() {
		AdapterUnderTest fixture = adapterUnderTest();
		String name = fixture.uniqueKey("shedlock-extend");
		long start = System.nanoTime();
		SimpleLock lock = present(fixture.newProvider().lock(config(name, fixture.slackTtl(), Duration.ZERO)));
		SimpleLock extended = present(lock.extend(LONG_TTL, Duration.ZERO));
		assertThat(extended).as("the extended lock is a new handle").isNotSameAs(lock);
		sleepUntil(start + fixture.slackTtl().multipliedBy(2).toNanos());
		fixture.assertHeld(name);
		assertThat(fixture.newProvider().lock(config(name))).isEmpty();
		extended.unlock();
		fixture.assertFree(name);
	}

	@Test
	default void extendedLockKeepsItsNewLockAtLeastForAfterUnlock() {
		AdapterUnderTest fixture = adapterUnderTest();
		String name = fixture.uniqueKey("shedlock-extend-at-least");
		SimpleLock lock = present(fixture.newProvider().lock(config(name)));
		long extendedAt = System.nanoTime();
		Duration atLeast = fixture.slackTtl();
		SimpleLock extended = present(lock.extend(LONG_TTL, atLeast));
		extended.unlock();
		ExtensibleLockProvider other = fixture.newProvider();
		assertThat(other.lock(config(name))).as("lock before the new lockAtLeastFor passed").isEmpty();
		awaitLock(other, name).unlock();
		assertThat(Duration.ofNanos(elapsedSince(extendedAt))).as("time until the name was free again")
			.isGreaterThanOrEqualTo(atLeast.minus(EXPIRY_TOLERANCE));
	}

	@Test
	default void handleThatWasExtendedCanNeitherUnlockNorExtend() {
		AdapterUnderTest fixture = adapterUnderTest();
		String name = fixture.uniqueKey("shedlock-old-handle");
		SimpleLock lock = present(fixture.newProvider().lock(config(name)));
		SimpleLock extended = present(lock.extend(LONG_TTL, Duration.ZERO));
		assertThatIllegalStateException().isThrownBy(lock::unlock);
		assertThatIllegalStateException().isThrownBy(() -> lock.extend(LONG_TTL, Duration.ZERO));
		fixture.assertHeld(name);
		extended.unlock();
		fixture.assertFree(name);
	}

	@Test
	default void unlockedLockCannotBeExtended() {
		AdapterUnderTest fixture = adapterUnderTest();
		String name = fixture.uniqueKey("shedlock-extend-unlocked");
		SimpleLock lock = present(fixture.newProvider().lock(config(name)));
		lock.unlock();
		assertThatIllegalStateException().isThrownBy(() -> lock.extend(LONG_TTL, Duration.ZERO));
		fixture.assertFree(name);
	}

	@Test
	default void expiredLockCannotBeExtended() {
		AdapterUnderTest fixture = adapterUnderTest();
		String name = fixture.uniqueKey("shedlock-extend-expired");
		SimpleLock lock = present(fixture.newProvider().lock(config(name, fixture.shortTtl(), Duration.ZERO)));
		fixture.awaitExpired(name);
		assertThat(lock.extend(LONG_TTL, Duration.ZERO)).isEmpty();
		fixture.assertFree(name);
	}

	@Test
	default void lockThatExpiredAndWasTakenOverCannotBeExtendedAndLeavesTheNewHolder() {
		AdapterUnderTest fixture = adapterUnderTest();
		String name = fixture.uniqueKey("shedlock-extend-taken-over");
		SimpleLock lock = present(fixture.newProvider().lock(config(name, fixture.shortTtl(), Duration.ZERO)));
		ExtensibleLockProvider other = fixture.newProvider();
		SimpleLock taken = awaitLock(other, name);
		assertThat(lock.extend(LONG_TTL, Duration.ZERO)).isEmpty();
		fixture.assertHeld(name);
		taken.unlock();
		fixture.assertFree(name);
	}

	/** Lock a name as soon as it is free, within {@link AdapterUnderTest#DEADLINE}. */
	private static SimpleLock awaitLock(ExtensibleLockProvider provider, String name) {
		return await().alias(name + " free again")
			.atMost(DEADLINE)
			.pollInterval(Duration.ofMillis(5))
			.pollInSameThread()
			.until(() -> provider.lock(config(name)), Optional::isPresent)
			.orElseThrow();
	}

}
