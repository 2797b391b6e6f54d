package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.SharedLockStore;

import static dev.lockstarter.test.contract.StoreUnderTest.EXPIRY_TOLERANCE;
import static dev.lockstarter.test.contract.StoreUnderTest.LONG_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.SHORT_TTL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The permits of a {@link SharedLockStore}: granted up to their number, also to
 * simultaneous acquirers, a refusal that reports the earliest expiry, and a place freed
 * by a release or an expiry. Skipped for other stores.
 */
interface PermitStoreContract extends StoreContract {

	@Test
	default void permitsAreGrantedUpToTheirNumberAndARefusalReportsTheEarliestExpiry() throws InterruptedException {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("permits");
		Duration earliest = Duration.ofSeconds(5);
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), Duration.ofSeconds(20), 3).isAcquired()).isTrue();
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), earliest, 3).isAcquired()).isTrue();
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 3).isAcquired()).isTrue();
		AcquireReply fourth = store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 3);
		assertThat(fourth.isAcquired()).as("a fourth holder of 3 permits").isFalse();
		assertThat(fourth.holderRemainingTtl()).as("remaining time-to-live of the holder that expires first")
			.isLessThanOrEqualTo(earliest)
			.isGreaterThan(earliest.minusSeconds(2));
		Thread.sleep(150);
		AcquireReply fifth = store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 3);
		assertThat(fifth.isAcquired()).isFalse();
		assertThat(fifth.holderRemainingTtl()).as("remaining time-to-live reported by a later refusal")
			.isLessThanOrEqualTo(fourth.holderRemainingTtl().minusMillis(100));
	}

	@Test
	default void onlyAsManySimultaneousPermitAcquirersWinAsThePermits() throws Exception {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		int contenders = 8;
		int permits = 3;
		ExecutorService executor = Executors.newFixedThreadPool(contenders);
		try {
			for (int round = 0; round < 20; round++) {
				String key = fixture.uniqueKey("simultaneous-permits");
				CountDownLatch go = new CountDownLatch(1);
				List<Future<Boolean>> attempts = new ArrayList<>();
				for (int i = 0; i < contenders; i++) {
					attempts.add(executor.submit(() -> {
						go.await();
						return store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, permits).isAcquired();
					}));
				}
				go.countDown();
				int winners = 0;
				for (Future<Boolean> attempt : attempts) {
					winners += attempt.get(10, TimeUnit.SECONDS) ? 1 : 0;
				}
				assertThat(winners)
					.as("holders of %d permits of %s after %d simultaneous attempts", permits, key, contenders)
					.isEqualTo(permits);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	default void aReleasedPermitFreesItsPlaceForAnotherHolder() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("permit-release");
		String first = fixture.uniqueToken();
		assertThat(store.tryAcquirePermit(key, first, LONG_TTL, 2).isAcquired()).isTrue();
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 2).isAcquired()).isTrue();
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 2).isAcquired()).isFalse();
		assertThat(store.releaseShared(key, first)).isTrue();
		assertThat(store.releaseShared(key, first)).as("a second release of the same place").isFalse();
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 2).isAcquired()).isTrue();
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 2).isAcquired()).isFalse();
	}

	@Test
	default void anExpiredPermitFreesItsPlace() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("permit-expiry");
		long start = System.nanoTime();
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), SHORT_TTL, 2).isAcquired()).isTrue();
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 2).isAcquired()).isTrue();
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 2).isAcquired()).isFalse();
		fixture.awaitGranted(key, () -> store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 2));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the place was free again")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE));
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 2).isAcquired())
			.as("a third holder after the expired one was replaced")
			.isFalse();
	}

}
