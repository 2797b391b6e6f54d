package dev.lockstarter.test.contract;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;

import static dev.lockstarter.test.contract.StoreUnderTest.EXPIRY_TOLERANCE;
import static dev.lockstarter.test.contract.StoreUnderTest.LONG_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.SHORT_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.sleepUntil;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Expiry of a store's locks: a lock is free once its time-to-live passes and not before,
 * an extension counts from now, and a holder whose lock expired can neither release nor
 * extend the lock of the owner that took it over.
 */
interface ExpiryContract extends StoreContract {

	@Test
	default void lockIsFreeAgainOnceItsTimeToLivePasses() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("expiry");
		long start = System.nanoTime();
		assertThat(store.tryAcquire(key, fixture.uniqueToken(), SHORT_TTL).isAcquired()).isTrue();
		fixture.assertHeld(key);
		String next = fixture.uniqueToken();
		fixture.awaitAcquired(key, next, LONG_TTL);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the lock was free again")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE));
		fixture.assertHeld(key);
		assertThat(store.release(key, next)).isTrue();
	}

	@Test
	default void staleHolderCannotReleaseTheNewHoldersLock() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("stale-release");
		String stale = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, stale, SHORT_TTL).isAcquired()).isTrue();
		String current = fixture.uniqueToken();
		fixture.awaitAcquired(key, current, LONG_TTL);
		assertThat(store.release(key, stale)).as("release by the holder whose lock expired").isFalse();
		fixture.assertHeld(key);
		assertThat(store.release(key, current)).isTrue();
	}

	@Test
	default void staleHolderCannotExtendTheNewHoldersLock() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("stale-extend");
		String stale = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, stale, SHORT_TTL).isAcquired()).isTrue();
		String current = fixture.uniqueToken();
		Duration ttl = Duration.ofSeconds(10);
		fixture.awaitAcquired(key, current, ttl);
		assertThat(store.extend(key, stale, Duration.ofMinutes(5))).as("extend by the holder whose lock expired")
			.isFalse();
		assertThat(fixture.holderRemainingTtl(key)).as("new holder's time-to-live after the stale holder's extend")
			.isLessThanOrEqualTo(ttl);
		assertThat(store.release(key, current)).isTrue();
	}

	@Test
	default void expiredLockCannotBeExtended() throws InterruptedException {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("expired-extend");
		String owner = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, owner, SHORT_TTL).isAcquired()).isTrue();
		Thread.sleep(SHORT_TTL.plusMillis(100).toMillis());
		assertThat(store.extend(key, owner, LONG_TTL)).isFalse();
		assertThat(store.tryAcquire(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("acquire after a failed extend of an expired lock")
			.isTrue();
	}

	@Test
	default void extendByTheOwnerResetsTheTimeToLive() throws InterruptedException {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("extend");
		String owner = fixture.uniqueToken();
		Duration ttl = Duration.ofMillis(500);
		long start = System.nanoTime();
		assertThat(store.tryAcquire(key, owner, ttl).isAcquired()).isTrue();
		Thread.sleep(100);
		Duration extended = Duration.ofSeconds(3);
		assertThat(store.extend(key, owner, extended)).isTrue();
		sleepUntil(start + ttl.plusMillis(100).toNanos());
		assertThat(fixture.holderRemainingTtl(key)).as("time-to-live after the original one passed")
			.isLessThanOrEqualTo(extended)
			.isGreaterThan(extended.minus(ttl).minusSeconds(1));
		assertThat(store.release(key, owner)).isTrue();
	}

	@Test
	default void extendCountsTheNewTimeToLiveFromNow() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("extend-shorter");
		String owner = fixture.uniqueToken();
		long start = System.nanoTime();
		assertThat(store.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		assertThat(store.extend(key, owner, SHORT_TTL)).isTrue();
		assertThat(fixture.holderRemainingTtl(key)).isLessThanOrEqualTo(SHORT_TTL);
		fixture.awaitAcquired(key, fixture.uniqueToken(), LONG_TTL);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the lock was free again")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE));
	}

	@Test
	default void failedAcquisitionDoesNotChangeTheHoldersTimeToLive() throws InterruptedException {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("failed-acquire");
		Duration ttl = Duration.ofSeconds(1);
		long start = System.nanoTime();
		assertThat(store.tryAcquire(key, fixture.uniqueToken(), ttl).isAcquired()).isTrue();
		AcquireReply first = store.tryAcquire(key, fixture.uniqueToken(), LONG_TTL);
		assertThat(first.isAcquired()).isFalse();
		assertThat(first.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(ttl);
		Thread.sleep(150);
		AcquireReply second = store.tryAcquire(key, fixture.uniqueToken(), LONG_TTL);
		assertThat(second.isAcquired()).isFalse();
		assertThat(second.holderRemainingTtl()).as("remaining time-to-live reported by a later conflict")
			.isLessThanOrEqualTo(first.holderRemainingTtl().minusMillis(100));
		fixture.awaitAcquired(key, fixture.uniqueToken(), LONG_TTL);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the lock was free again")
			.isGreaterThanOrEqualTo(ttl.minus(EXPIRY_TOLERANCE))
			.isLessThan(ttl.plusSeconds(2));
	}

}
