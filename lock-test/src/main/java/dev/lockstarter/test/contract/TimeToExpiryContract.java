package dev.lockstarter.test.contract;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.LockStore;

import static dev.lockstarter.test.contract.StoreUnderTest.EXPIRY_DEADLINE;
import static dev.lockstarter.test.contract.StoreUnderTest.EXPIRY_TOLERANCE;
import static dev.lockstarter.test.contract.StoreUnderTest.LONG_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.SHORT_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.printable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The read-only {@link LockStore#timeToExpiry(String) time to expiry} of free, held,
 * extended, released and expired locks.
 */
interface TimeToExpiryContract extends StoreContract {

	@Test
	default void timeToExpiryOfAFreeKeyIsZero() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		assertThat(store.timeToExpiry(fixture.uniqueKey("tte-free"))).isZero();
	}

	@Test
	default void timeToExpiryOfAHeldKeyIsTheHoldersRemainingTimeToLive() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("tte-held");
		String owner = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		assertThat(store.timeToExpiry(key)).as("time to expiry of a key held for %s", LONG_TTL)
			.isPositive()
			.isLessThanOrEqualTo(LONG_TTL)
			.isGreaterThan(LONG_TTL.minusSeconds(2));
		assertThat(store.release(key, owner)).isTrue();
		assertThat(store.timeToExpiry(key)).as("time to expiry after the release").isZero();
	}

	@Test
	default void timeToExpiryIsZeroOnceTheTimeToLivePasses() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("tte-expiry");
		long start = System.nanoTime();
		assertThat(store.tryAcquire(key, fixture.uniqueToken(), SHORT_TTL).isAcquired()).isTrue();
		assertThat(store.timeToExpiry(key)).isPositive().isLessThanOrEqualTo(SHORT_TTL);
		await("lock " + printable(key) + " reported free, once taken for " + SHORT_TTL).atMost(EXPIRY_DEADLINE)
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(5))
			.until(() -> store.timeToExpiry(key).isZero());
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the lock was reported free")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE));
		assertThat(store.timeToExpiry(key)).as("time to expiry once the lock expired").isZero();
		fixture.awaitAcquired(key, fixture.uniqueToken(), LONG_TTL);
	}

	@Test
	default void timeToExpiryFollowsAnExtension() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("tte-extend");
		String owner = fixture.uniqueToken();
		Duration ttl = Duration.ofSeconds(10);
		assertThat(store.tryAcquire(key, owner, ttl).isAcquired()).isTrue();
		Duration before = store.timeToExpiry(key);
		assertThat(before).isPositive().isLessThanOrEqualTo(ttl);
		assertThat(store.extend(key, owner, LONG_TTL)).isTrue();
		assertThat(store.timeToExpiry(key)).as("time to expiry after an extension to %s", LONG_TTL)
			.isGreaterThan(before)
			.isGreaterThan(LONG_TTL.minusSeconds(2))
			.isLessThanOrEqualTo(LONG_TTL);
		assertThat(store.release(key, owner)).isTrue();
	}

	@Test
	default void readingTheTimeToExpiryLeavesTheLockAlone() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("tte-read-only");
		String owner = fixture.uniqueToken();
		Duration ttl = Duration.ofSeconds(10);
		assertThat(store.tryAcquire(key, owner, ttl).isAcquired()).isTrue();
		for (int i = 0; i < 3; i++) {
			assertThat(store.timeToExpiry(key)).isPositive().isLessThanOrEqualTo(ttl);
		}
		assertThat(store.tryAcquire(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("another owner's acquisition after the time to expiry was read")
			.isFalse();
		assertThat(fixture.holderRemainingTtl(key)).as("holder's time-to-live after the time to expiry was read")
			.isLessThanOrEqualTo(ttl);
		assertThat(store.timeToExpiry(fixture.uniqueKey("tte-other"))).isZero();
		assertThat(store.release(key, owner)).as("release by the holder after the time to expiry was read").isTrue();
		assertThat(store.timeToExpiry(key)).isZero();
		assertThat(store.tryAcquire(key, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
	}

}
