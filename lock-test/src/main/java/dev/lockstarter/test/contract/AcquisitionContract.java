package dev.lockstarter.test.contract;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;

import static dev.lockstarter.test.contract.StoreUnderTest.LONG_TTL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acquisition, conflict and owner-only release and extension of a store, on keys that do
 * not expire during the test.
 */
interface AcquisitionContract extends StoreContract {

	@Test
	default void freeKeyIsAcquired() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		AcquireReply result = store.tryAcquire(fixture.uniqueKey("free"), fixture.uniqueToken(), LONG_TTL);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.holderRemainingTtl()).isZero();
	}

	@Test
	default void secondOwnerIsRejectedWhileFirstHoldsTheLock() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("conflict");
		Duration ttl = Duration.ofSeconds(10);
		assertThat(store.tryAcquire(key, fixture.uniqueToken(), ttl).isAcquired()).isTrue();
		AcquireReply second = store.tryAcquire(key, fixture.uniqueToken(), ttl);
		assertThat(second.isAcquired()).isFalse();
		assertThat(second.holderRemainingTtl()).isPositive()
			.isLessThanOrEqualTo(ttl)
			.isGreaterThan(ttl.minusSeconds(5));
	}

	@Test
	default void releasedLockCanBeAcquiredAgain() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("reacquire");
		String first = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, first, LONG_TTL).isAcquired()).isTrue();
		assertThat(store.release(key, first)).isTrue();
		String second = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, second, LONG_TTL).isAcquired()).isTrue();
		fixture.assertHeld(key);
		assertThat(store.release(key, second)).isTrue();
	}

	@Test
	default void onlyTheOwnerCanRelease() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("release-owner");
		String owner = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		assertThat(store.release(key, fixture.uniqueToken())).isFalse();
		fixture.assertHeld(key);
		assertThat(store.release(key, owner)).isTrue();
	}

	@Test
	default void onlyTheOwnerCanExtend() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("extend-owner");
		Duration ttl = Duration.ofSeconds(10);
		String owner = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, owner, ttl).isAcquired()).isTrue();
		assertThat(store.extend(key, fixture.uniqueToken(), Duration.ofMinutes(5))).isFalse();
		assertThat(fixture.holderRemainingTtl(key)).as("holder's time-to-live after another owner's extend")
			.isLessThanOrEqualTo(ttl);
		assertThat(store.extend(key, owner, Duration.ofMinutes(5))).isTrue();
		assertThat(store.release(key, owner)).isTrue();
	}

	@Test
	default void differentKeysAreIndependent() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String first = fixture.uniqueKey("independent-1");
		String second = fixture.uniqueKey("independent-2");
		String firstOwner = fixture.uniqueToken();
		String secondOwner = fixture.uniqueToken();
		assertThat(store.tryAcquire(first, firstOwner, LONG_TTL).isAcquired()).isTrue();
		assertThat(store.tryAcquire(second, secondOwner, LONG_TTL).isAcquired()).isTrue();
		assertThat(store.release(second, firstOwner)).isFalse();
		assertThat(store.extend(second, firstOwner, LONG_TTL)).isFalse();
		assertThat(store.release(first, firstOwner)).isTrue();
		fixture.assertHeld(second);
		assertThat(store.tryAcquire(first, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
		assertThat(store.release(second, secondOwner)).isTrue();
	}

	@Test
	default void releasingTwiceReturnsFalseTheSecondTime() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("release-twice");
		String owner = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		assertThat(store.release(key, owner)).isTrue();
		assertThat(store.release(key, owner)).isFalse();
	}

	@Test
	default void releasingAKeyThatWasNeverLockedReturnsFalse() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		assertThat(store.release(fixture.uniqueKey("never-locked"), fixture.uniqueToken())).isFalse();
	}

	@Test
	default void extendingAKeyThatWasNeverLockedReturnsFalseAndDoesNotLockIt() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("never-locked");
		String token = fixture.uniqueToken();
		assertThat(store.extend(key, token, LONG_TTL)).isFalse();
		assertThat(store.tryAcquire(key, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
	}

}
