package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import dev.lockstarter.store.SharedLockStore;
import dev.lockstarter.store.StoredLock;

import static dev.lockstarter.test.contract.StoreUnderTest.LONG_TTL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's view of an {@link InspectableLockStore}: the holders under a prefix,
 * with their tokens, time to expiry and fencing tokens, and a force-release that frees a
 * key whoever holds it, or only the holder listed, and leaves its holder unable to extend
 * or release it. Skipped for other stores.
 */
interface InspectionContract extends StoreContract {

	@Test
	default void inspectableStoreListsTheHoldersUnderAPrefixInKeyOrder() {
		StoreUnderTest fixture = storeUnderTest();
		InspectableLockStore store = fixture.inspectableStore();
		String prefix = fixture.uniqueKey("holders") + ":";
		String first = fixture.uniqueToken();
		String second = fixture.uniqueToken();
		AcquireReply b = store.tryAcquire(prefix + "b", second, Duration.ofSeconds(20));
		AcquireReply a = store.tryAcquire(prefix + "a", first, LONG_TTL);
		assertThat(a.isAcquired() && b.isAcquired()).isTrue();
		String outside = fixture.uniqueKey("outside");
		assertThat(store.tryAcquire(outside, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
		assertThat(store.tryAcquire(prefix + "released", first, LONG_TTL).isAcquired()).isTrue();
		assertThat(store.release(prefix + "released", first)).isTrue();

		List<StoredLock> holders = store.holders(prefix, 10);

		assertThat(holders).extracting(StoredLock::key).containsExactly(prefix + "a", prefix + "b");
		assertThat(holders).extracting(StoredLock::token).containsExactly(first, second);
		assertThat(holders.get(0).timeToExpiry()).isPositive().isLessThanOrEqualTo(LONG_TTL);
		assertThat(holders.get(1).timeToExpiry()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(20));
		DeclaredFencing fencing = fixture.fencing();
		fencing.ofPlainAcquisitions(store)
			.check("fencing tokens of the listed holders", holders.stream().map(StoredLock::fencingToken).toList());
		if (a.fencingToken() != AcquireReply.NO_FENCING_TOKEN) {
			assertThat(holders.get(0).fencingToken()).as("the token the acquisition was given")
				.isEqualTo(a.fencingToken());
		}
		assertThat(store.holders(prefix, 1)).extracting(StoredLock::key).containsExactly(prefix + "a");
		assertThat(store.holders(prefix + "zzz", 10)).isEmpty();
	}

	@Test
	default void inspectableStoreListsTheKeysOfAMultiKeyLock() {
		StoreUnderTest fixture = storeUnderTest();
		InspectableLockStore store = fixture.inspectableStore();
		String prefix = fixture.uniqueKey("multi") + ":";
		String token = fixture.uniqueToken();
		List<String> keys = List.of(prefix + "1", prefix + "2");
		if (store instanceof MultiKeyLockStore multiKey) {
			assertThat(multiKey.tryAcquireAll(keys, token, LONG_TTL).isAcquired()).isTrue();
		}
		else {
			keys.forEach((key) -> assertThat(store.tryAcquire(key, token, LONG_TTL).isAcquired()).isTrue());
		}
		assertThat(store.holders(prefix, 10)).extracting(StoredLock::key).containsExactlyElementsOf(keys);
		assertThat(store.holders(prefix, 10)).extracting(StoredLock::token).containsOnly(token);
	}

	@Test
	default void inspectableStoreListsNeitherResultsNorSharedPlaces() {
		StoreUnderTest fixture = storeUnderTest();
		InspectableLockStore store = fixture.inspectableStore();
		String prefix = fixture.uniqueKey("records") + ":";
		String token = fixture.uniqueToken();
		assertThat(store.tryAcquire(prefix + "held", token, LONG_TTL).isAcquired()).isTrue();
		if (store instanceof ResultStoringLockStore results) {
			assertThat(results.putResult(prefix + "held", token, new byte[] { 1 }, LONG_TTL)).isTrue();
		}
		if (store instanceof SharedLockStore shared) {
			assertThat(shared.tryAcquirePermit(prefix + "permits", token, LONG_TTL, 2).isAcquired()).isTrue();
			assertThat(shared.tryAcquireRead(prefix + "read", token, LONG_TTL).isAcquired()).isTrue();
			assertThat(shared.tryAcquireWrite(prefix + "write", fixture.uniqueToken(), LONG_TTL, LONG_TTL).isAcquired())
				.isTrue();
		}
		assertThat(store.holders(prefix, 10)).extracting(StoredLock::key).containsExactly(prefix + "held");
	}

	@Test
	default void forceReleaseFreesAKeyWhoeverHoldsItAndItsHolderFindsItLost() {
		StoreUnderTest fixture = storeUnderTest();
		InspectableLockStore store = fixture.inspectableStore();
		String key = fixture.uniqueKey("force");
		String holder = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, holder, LONG_TTL).isAcquired()).isTrue();

		assertThat(store.forceRelease(key)).as("a held lock is force-released").isTrue();

		assertThat(store.timeToExpiry(key)).isEqualTo(Duration.ZERO);
		assertThat(store.holders(key, 10)).isEmpty();
		assertThat(store.extend(key, holder, LONG_TTL)).as("the former holder's extension").isFalse();
		assertThat(store.release(key, holder)).as("the former holder's release").isFalse();
		String next = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, next, LONG_TTL).isAcquired()).as("the key is free").isTrue();
		fixture.assertHeld(key);
		assertThat(store.release(key, holder)).as("the former holder cannot release the new lock").isFalse();
		assertThat(store.release(key, next)).isTrue();
		assertThat(store.forceRelease(key)).as("a free key has nothing to force-release").isFalse();
	}

	@Test
	default void forceReleaseOfAListedHolderFreesOnlyThatHolder() {
		StoreUnderTest fixture = storeUnderTest();
		InspectableLockStore store = fixture.inspectableStore();
		String key = fixture.uniqueKey("force-listed");
		String listed = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, listed, LONG_TTL).isAcquired()).isTrue();
		assertThat(store.holders(key, 1)).extracting(StoredLock::token).containsExactly(listed);
		assertThat(store.release(key, listed)).as("released after the listing").isTrue();
		String since = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, since, LONG_TTL).isAcquired()).isTrue();

		assertThat(store.forceRelease(key, listed)).as("the listed holder, gone since").isFalse();
		assertThat(store.holders(key, 1)).as("the lock taken since the listing, untouched")
			.extracting(StoredLock::token)
			.containsExactly(since);
		fixture.assertHeld(key);

		assertThat(store.forceRelease(key, since)).as("the holder listed now").isTrue();
		assertThat(store.holders(key, 10)).isEmpty();
		assertThat(store.extend(key, since, LONG_TTL)).as("the former holder's extension").isFalse();
		String next = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, next, LONG_TTL).isAcquired()).as("the key is free").isTrue();
		assertThat(store.release(key, next)).isTrue();
	}

	@Test
	default void forceReleaseKeepsTheResultKeptNextToTheLock() {
		StoreUnderTest fixture = storeUnderTest();
		InspectableLockStore store = fixture.inspectableStore();
		ResultStoringLockStore results = fixture.resultStore();
		String key = fixture.uniqueKey("result");
		String first = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, first, LONG_TTL).isAcquired()).isTrue();
		assertThat(results.releaseKeepingResult(key, first, new byte[] { 1 }, LONG_TTL)).isTrue();
		assertThat(store.forceRelease(key)).as("a key with a result and no lock").isFalse();
		assertThat(results.getResult(key)).containsExactly(1);
		String holder = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, holder, LONG_TTL).isAcquired()).isTrue();
		assertThat(results.putResult(key, holder, new byte[] { 2 }, LONG_TTL)).isTrue();

		assertThat(store.forceRelease(key)).isTrue();

		assertThat(results.getResult(key)).as("the result kept next to the force-released lock").containsExactly(2);
		assertThat(results.putResult(key, holder, new byte[] { 3 }, LONG_TTL)).as("the former holder's result")
			.isFalse();
		assertThat(store.holders(key, 10)).isEmpty();
	}

	@Test
	default void aListedFencingTokenIsTheHoldersOrLaterAndBelowTheNextHolders() {
		StoreUnderTest fixture = storeUnderTest();
		InspectableLockStore store = fixture.inspectableStore();
		String key = fixture.uniqueKey("fenced");
		String holder = fixture.uniqueToken();
		long acquired = store.tryAcquire(key, holder, LONG_TTL).fencingToken();
		Assumptions.assumeTrue(acquired != AcquireReply.NO_FENCING_TOKEN,
				() -> store.getClass().getSimpleName() + " gives no fencing token with an acquisition");
		assertThat(store.holders(key, 1)).extracting(StoredLock::fencingToken).containsExactly(acquired);
		assertThat(store.extend(key, holder, LONG_TTL)).isTrue();
		long listed = store.holders(key, 1).get(0).fencingToken();
		// A store may list the revision of the holder's last write, which a renewal moves
		// on
		assertThat(listed).as("after a renewal").isGreaterThanOrEqualTo(acquired);
		assertThat(store.release(key, holder)).isTrue();
		assertThat(store.tryAcquire(key, fixture.uniqueToken(), LONG_TTL).fencingToken()).as("the next holder's")
			.isGreaterThan(listed);
	}

	@Test
	default void forceReleaseOfOneKeyLeavesTheOthersHeld() {
		StoreUnderTest fixture = storeUnderTest();
		InspectableLockStore store = fixture.inspectableStore();
		String prefix = fixture.uniqueKey("one-of") + ":";
		String token = fixture.uniqueToken();
		assertThat(store.tryAcquire(prefix + "a", token, LONG_TTL).isAcquired()).isTrue();
		assertThat(store.tryAcquire(prefix + "ab", token, LONG_TTL).isAcquired()).isTrue();
		assertThat(store.forceRelease(prefix + "a")).isTrue();
		assertThat(store.holders(prefix, 10)).extracting(StoredLock::key).containsExactly(prefix + "ab");
		assertThat(store.extend(prefix + "ab", token, LONG_TTL)).as("the other key's lock is still held").isTrue();
	}

}
