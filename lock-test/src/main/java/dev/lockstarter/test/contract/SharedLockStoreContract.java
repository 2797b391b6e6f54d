package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.SharedLockStore;

import static dev.lockstarter.test.contract.StoreUnderTest.EXPIRY_DEADLINE;
import static dev.lockstarter.test.contract.StoreUnderTest.EXPIRY_TOLERANCE;
import static dev.lockstarter.test.contract.StoreUnderTest.LONG_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.SHORT_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.printable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The permits and read/write locks of a {@link SharedLockStore}: its
 * {@link PermitStoreContract permits}, readers that share and a writer that excludes,
 * with {@link WriterPreferenceContract writer preference}, owner-only release and
 * extension, stale holders, expiry, fencing tokens that increase across grants of every
 * kind, the time to expiry of a shared key, and shared keys that leave the mutexes of
 * other keys alone. Skipped for other stores.
 */
interface SharedLockStoreContract extends PermitStoreContract, WriterPreferenceContract {

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
		fixture.awaitGranted(key, () -> store.tryAcquireWrite(key, current, ttl, Duration.ZERO));
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
		await("time to expiry of " + printable(key) + " zero").atMost(EXPIRY_DEADLINE)
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(5))
			.until(() -> store.sharedTimeToExpiry(key).isZero());
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

	private static long granted(AcquireReply reply) {
		assertThat(reply.isAcquired()).as("a grant on a free key").isTrue();
		return reply.fencingToken();
	}

}
