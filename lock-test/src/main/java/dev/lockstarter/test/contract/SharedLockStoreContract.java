package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.SharedLockStore;

import static dev.lockstarter.test.contract.StoreUnderTest.EXPIRY_DEADLINE;
import static dev.lockstarter.test.contract.StoreUnderTest.EXPIRY_TOLERANCE;
import static dev.lockstarter.test.contract.StoreUnderTest.LONG_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.SHORT_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.printable;
import static dev.lockstarter.test.contract.StoreUnderTest.sleep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The permits and read/write locks of a {@link SharedLockStore}: permits up to their
 * number, a refusal that reports the earliest expiry, readers that share and a writer
 * that excludes, a refused writer's wait that holds back new readers until it is granted,
 * releases by its token or runs out, for no longer than the writer's time-to-live unless
 * it asks again (and a writer that will not wait holds back no one), owner-only release
 * and extension, stale holders, expiry, fencing tokens that increase across grants of
 * every kind, the time to expiry of a shared key, and shared keys that leave the mutexes
 * of other keys alone. Skipped for other stores.
 */
interface SharedLockStoreContract extends StoreContract {

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
		awaitGranted(key, () -> store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 2));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the place was free again")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE));
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 2).isAcquired())
			.as("a third holder after the expired one was replaced")
			.isFalse();
	}

	@Test
	default void readersShareAKeyAndKeepAWriterOut() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("readers");
		String first = fixture.uniqueToken();
		assertThat(store.tryAcquireRead(key, first, Duration.ofSeconds(5)).isAcquired()).isTrue();
		String second = fixture.uniqueToken();
		assertThat(store.tryAcquireRead(key, second, Duration.ofSeconds(20)).isAcquired()).isTrue();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), Duration.ofSeconds(5)).isAcquired()).isTrue();
		AcquireReply writer = store.tryAcquireWrite(key, fixture.uniqueToken(), LONG_TTL, Duration.ZERO);
		assertThat(writer.isAcquired()).as("a writer beside readers").isFalse();
		assertThat(writer.holderRemainingTtl()).as("the readers' longest remaining time-to-live")
			.isLessThanOrEqualTo(Duration.ofSeconds(20))
			.isGreaterThan(Duration.ofSeconds(15));
	}

	@Test
	default void aWriterExcludesReadersAndOtherWriters() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("writer");
		String writer = fixture.uniqueToken();
		Duration ttl = Duration.ofSeconds(10);
		assertThat(store.tryAcquireWrite(key, writer, ttl, Duration.ZERO).isAcquired()).isTrue();
		AcquireReply reader = store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL);
		assertThat(reader.isAcquired()).as("a reader beside a writer").isFalse();
		assertThat(reader.holderRemainingTtl()).as("the writer's remaining time-to-live")
			.isLessThanOrEqualTo(ttl)
			.isGreaterThan(ttl.minusSeconds(5));
		assertThat(store.tryAcquireWrite(key, fixture.uniqueToken(), LONG_TTL, Duration.ZERO).isAcquired())
			.as("a second writer")
			.isFalse();
		assertThat(store.releaseShared(key, writer)).isTrue();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a reader after the writer left")
			.isTrue();
	}

	@Test
	default void aWaitingWriterHoldsBackNewReadersUntilItIsGranted() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("waiting-writer");
		String reader = fixture.uniqueToken();
		Duration readerTtl = Duration.ofSeconds(10);
		assertThat(store.tryAcquireRead(key, reader, readerTtl).isAcquired()).isTrue();
		String writer = fixture.uniqueToken();
		assertThat(store.tryAcquireWrite(key, writer, LONG_TTL, LONG_TTL).isAcquired()).isFalse();
		AcquireReply held = store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL);
		assertThat(held.isAcquired()).as("a new reader while a writer waits").isFalse();
		assertThat(held.holderRemainingTtl()).as("the readers' longest remaining time-to-live")
			.isPositive()
			.isLessThanOrEqualTo(readerTtl);
		assertThat(store.releaseShared(key, reader)).isTrue();
		assertThat(store.tryAcquireWrite(key, writer, LONG_TTL, LONG_TTL).isAcquired())
			.as("the waiting writer once the readers left")
			.isTrue();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a reader beside the writer")
			.isFalse();
		assertThat(store.releaseShared(key, writer)).isTrue();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a reader after the writer left")
			.isTrue();
	}

	@Test
	default void aWritersWaitEndsWhenItIsGranted() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("wait-granted");
		String reader = fixture.uniqueToken();
		assertThat(store.tryAcquireRead(key, reader, LONG_TTL).isAcquired()).isTrue();
		String writer = fixture.uniqueToken();
		assertThat(store.tryAcquireWrite(key, writer, LONG_TTL, LONG_TTL).isAcquired()).isFalse();
		assertThat(store.releaseShared(key, reader)).isTrue();
		assertThat(store.tryAcquireWrite(key, writer, SHORT_TTL, LONG_TTL).isAcquired()).isTrue();
		// The writer's place expires, unreleased: its wait, which would last LONG_TTL,
		// ended when it was granted
		awaitGranted(key, () -> store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL));
	}

	@Test
	default void aWritersWaitEndsWhenItReleasesByItsToken() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("wait-released");
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
		String writer = fixture.uniqueToken();
		assertThat(store.tryAcquireWrite(key, writer, LONG_TTL, LONG_TTL).isAcquired()).isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader while a writer waits")
			.isFalse();
		assertThat(store.releaseShared(key, fixture.uniqueToken())).as("a release by another token").isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader after another token's release")
			.isFalse();
		assertThat(store.releaseShared(key, writer)).as("the writer held no place").isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader once the writer gave up its wait")
			.isTrue();
	}

	@Test
	default void aWritersWaitEndsOnceItsWaitPasses() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("wait-passes");
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
		long start = System.nanoTime();
		assertThat(store.tryAcquireWrite(key, fixture.uniqueToken(), LONG_TTL, SHORT_TTL).isAcquired()).isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader while a writer waits")
			.isFalse();
		awaitGranted(key, () -> store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until new readers were granted again")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE));
	}

	@Test
	default void aWaitingWriterThatStopsAskingHoldsReadersBackForAtMostItsTimeToLive() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("crashed-writer");
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
		long start = System.nanoTime();
		// A writer that would wait LONG_TTL is refused once, then crashes: it never asks
		// again and never releases
		assertThat(store.tryAcquireWrite(key, fixture.uniqueToken(), SHORT_TTL, LONG_TTL).isAcquired()).isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader while the writer's wait lasts")
			.isFalse();
		awaitGranted(key, () -> store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until new readers were granted again")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE))
			.isLessThan(EXPIRY_DEADLINE);
	}

	@Test
	default void aWriterThatGoesOnAskingHoldsReadersBackPastItsTimeToLive() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("asking-writer");
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
		String writer = fixture.uniqueToken();
		Duration ttl = Duration.ofSeconds(1);
		long end = System.nanoTime() + ttl.multipliedBy(3).toNanos();
		while (System.nanoTime() - end < 0) {
			// Each refused try records the wait anew, for another TTL
			assertThat(store.tryAcquireWrite(key, writer, ttl, LONG_TTL).isAcquired()).isFalse();
			assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
				.as("a new reader while the writer goes on asking")
				.isFalse();
			sleep(ttl.dividedBy(10));
		}
		assertThat(store.releaseShared(key, writer)).as("the writer held no place").isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader once the writer gave up its wait")
			.isTrue();
	}

	@Test
	default void aWriterThatWillNotWaitHoldsNoReaderBack() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("no-wait");
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
		assertThat(store.tryAcquireWrite(key, fixture.uniqueToken(), LONG_TTL, Duration.ZERO).isAcquired()).isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader after a writer that will not wait was refused")
			.isTrue();
	}

	@Test
	default void onlyTheHolderReleasesOrExtendsItsPlace() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("owner");
		String holder = fixture.uniqueToken();
		Duration ttl = Duration.ofSeconds(5);
		assertThat(store.tryAcquirePermit(key, holder, ttl, 1).isAcquired()).isTrue();
		String other = fixture.uniqueToken();
		assertThat(store.releaseShared(key, other)).as("release by another token").isFalse();
		assertThat(store.extendShared(key, other, LONG_TTL)).as("extend by another token").isFalse();
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 1).isAcquired())
			.as("the key after another token's release")
			.isFalse();
		assertThat(store.sharedTimeToExpiry(key)).as("time to expiry after another token's extend")
			.isLessThanOrEqualTo(ttl);
		assertThat(store.extendShared(key, holder, LONG_TTL)).isTrue();
		assertThat(store.sharedTimeToExpiry(key)).as("time to expiry after the holder's extend")
			.isGreaterThan(LONG_TTL.minusSeconds(5));
		assertThat(store.releaseShared(key, holder)).isTrue();
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 1).isAcquired()).isTrue();
	}

	@Test
	default void aStaleHolderCanNeitherReleaseNorExtendAfterItsPlaceExpired() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("stale");
		String stale = fixture.uniqueToken();
		assertThat(store.tryAcquireWrite(key, stale, SHORT_TTL, Duration.ZERO).isAcquired()).isTrue();
		String current = fixture.uniqueToken();
		Duration ttl = Duration.ofSeconds(10);
		awaitGranted(key, () -> store.tryAcquireWrite(key, current, ttl, Duration.ZERO));
		assertThat(store.releaseShared(key, stale)).as("release by the holder whose place expired").isFalse();
		assertThat(store.extendShared(key, stale, Duration.ofMinutes(5))).as("extend by the holder whose place expired")
			.isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a reader beside the current writer")
			.isFalse();
		assertThat(store.sharedTimeToExpiry(key)).as("the current writer's time to expiry").isLessThanOrEqualTo(ttl);
		assertThat(store.releaseShared(key, current)).isTrue();
	}

	@Test
	default void anExpiredPlaceCannotBeExtended() throws InterruptedException {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("expired-extend");
		String owner = fixture.uniqueToken();
		assertThat(store.tryAcquireRead(key, owner, SHORT_TTL).isAcquired()).isTrue();
		Thread.sleep(SHORT_TTL.plusMillis(100).toMillis());
		assertThat(store.extendShared(key, owner, LONG_TTL)).isFalse();
		assertThat(store.releaseShared(key, owner)).isFalse();
		assertThat(store.tryAcquireWrite(key, fixture.uniqueToken(), LONG_TTL, Duration.ZERO).isAcquired())
			.as("a writer after the reader's place expired")
			.isTrue();
	}

	@Test
	default void fencingTokensStrictlyIncreaseAcrossGrantsOfEveryKind() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("fencing");
		List<Long> tokens = new ArrayList<>();
		List<String> permits = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			String holder = fixture.uniqueToken();
			tokens.add(granted(store.tryAcquirePermit(key, holder, LONG_TTL, 2)));
			permits.add(holder);
			if (permits.size() == 2) {
				assertThat(store.releaseShared(key, permits.remove(0))).isTrue();
			}
		}
		permits.forEach((holder) -> assertThat(store.releaseShared(key, holder)).isTrue());
		// The key is free again: a key serves one kind of lock at a time
		for (int round = 0; round < 3; round++) {
			List<String> readers = List.of(fixture.uniqueToken(), fixture.uniqueToken());
			for (String reader : readers) {
				tokens.add(granted(store.tryAcquireRead(key, reader, LONG_TTL)));
			}
			readers.forEach((reader) -> assertThat(store.releaseShared(key, reader)).isTrue());
			String writer = fixture.uniqueToken();
			tokens.add(granted(store.tryAcquireWrite(key, writer, LONG_TTL, Duration.ZERO)));
			assertThat(store.releaseShared(key, writer)).isTrue();
		}
		assertThat(tokens).as("fencing tokens of one key's permits, then reads and writes, in grant order")
			.doesNotHaveDuplicates()
			.isSorted();
	}

	@Test
	default void sharedTimeToExpiryIsTheLongestHoldersRemainingTimeToLive() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("time-to-expiry");
		assertThat(store.sharedTimeToExpiry(key)).as("time to expiry of a free key").isZero();
		String first = fixture.uniqueToken();
		String second = fixture.uniqueToken();
		assertThat(store.tryAcquirePermit(key, first, Duration.ofSeconds(5), 2).isAcquired()).isTrue();
		assertThat(store.tryAcquirePermit(key, second, Duration.ofSeconds(20), 2).isAcquired()).isTrue();
		Duration longest = store.sharedTimeToExpiry(key);
		assertThat(longest).as("time to expiry of a key with two holders")
			.isLessThanOrEqualTo(Duration.ofSeconds(20))
			.isGreaterThan(Duration.ofSeconds(15));
		assertThat(store.sharedTimeToExpiry(key)).as("reading again changes nothing").isLessThanOrEqualTo(longest);
		assertThat(store.tryAcquirePermit(key, fixture.uniqueToken(), LONG_TTL, 2).isAcquired())
			.as("a third holder after the reads")
			.isFalse();
		assertThat(store.releaseShared(key, second)).isTrue();
		assertThat(store.sharedTimeToExpiry(key)).as("time to expiry once the longest holder left")
			.isLessThanOrEqualTo(Duration.ofSeconds(5))
			.isPositive();
		assertThat(store.releaseShared(key, first)).isTrue();
		assertThat(store.sharedTimeToExpiry(key)).as("time to expiry once every holder left").isZero();
	}

	@Test
	default void sharedTimeToExpiryIsZeroOnceThePlacesExpire() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("time-to-expiry-expired");
		long start = System.nanoTime();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), SHORT_TTL).isAcquired()).isTrue();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), SHORT_TTL).isAcquired()).isTrue();
		assertThat(store.sharedTimeToExpiry(key)).isPositive().isLessThanOrEqualTo(SHORT_TTL);
		long deadline = start + EXPIRY_DEADLINE.toNanos();
		while (!store.sharedTimeToExpiry(key).isZero()) {
			if (System.nanoTime() - deadline > 0) {
				fail("Time to expiry of %s was not zero within %s", printable(key), EXPIRY_DEADLINE);
			}
			sleep(Duration.ofMillis(5));
		}
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the time to expiry was zero")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE));
		assertThat(store.tryAcquireWrite(key, fixture.uniqueToken(), LONG_TTL, Duration.ZERO).isAcquired())
			.as("a writer once the readers expired")
			.isTrue();
	}

	@Test
	default void aSharedKeyLeavesTheMutexOfAnotherKeyAlone() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		LockStore mutexes = fixture.store();
		String mutexKey = fixture.uniqueKey("mutex");
		String sharedKey = fixture.uniqueKey("shared");
		String owner = fixture.uniqueToken();
		Duration ttl = Duration.ofSeconds(10);
		assertThat(mutexes.tryAcquire(mutexKey, owner, ttl).isAcquired()).isTrue();
		String writer = fixture.uniqueToken();
		assertThat(store.tryAcquireWrite(sharedKey, writer, LONG_TTL, Duration.ZERO).isAcquired())
			.as("a writer of another key beside a mutex")
			.isTrue();
		assertThat(store.extendShared(sharedKey, writer, LONG_TTL)).isTrue();
		assertThat(store.releaseShared(sharedKey, writer)).isTrue();
		String permit = fixture.uniqueToken();
		assertThat(store.tryAcquirePermit(sharedKey, permit, LONG_TTL, 2).isAcquired()).isTrue();
		fixture.assertHeld(mutexKey);
		assertThat(mutexes.timeToExpiry(mutexKey)).as("the mutex's time to expiry")
			.isPositive()
			.isLessThanOrEqualTo(ttl);
		assertThat(mutexes.release(mutexKey, owner)).isTrue();
		assertThat(store.releaseShared(sharedKey, permit)).isTrue();
	}

	/** Try to take a place until it is granted, within {@link #EXPIRY_DEADLINE}. */
	private static void awaitGranted(String key, Supplier<AcquireReply> acquisition) {
		long deadline = System.nanoTime() + EXPIRY_DEADLINE.toNanos();
		while (!acquisition.get().isAcquired()) {
			if (System.nanoTime() - deadline > 0) {
				fail("A place on %s was not granted within %s", printable(key), EXPIRY_DEADLINE);
			}
			sleep(Duration.ofMillis(5));
		}
	}

	private static long granted(AcquireReply reply) {
		assertThat(reply.isAcquired()).as("a grant on a free key").isTrue();
		return reply.fencingToken();
	}

}
