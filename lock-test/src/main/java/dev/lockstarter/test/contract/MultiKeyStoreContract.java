package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;

import static dev.lockstarter.test.contract.StoreUnderTest.LONG_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.SHORT_TTL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The locks of several keys taken at once by a {@link MultiKeyLockStore}: all keys or
 * none, a held key leaves the others free and its holder's time-to-live unchanged,
 * release only by token, and overlapping sets named in any order never hold a key twice.
 * Skipped for other stores, whose multi-key locks {@link LockOperationsContractTests}
 * checks.
 */
interface MultiKeyStoreContract extends StoreContract {

	@Test
	default void multiKeyStoreAcquiresEveryFreeKeyWithAFencingTokenEach() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		MultiKeyLockStore multiKey = fixture.multiKeyStore();
		List<String> keys = sortedKeys("all", 3);
		String token = fixture.uniqueToken();
		MultiKeyAcquireReply result = multiKey.tryAcquireAll(keys, token, LONG_TTL);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.heldIndex()).isEqualTo(-1);
		assertThat(result.fencingTokens()).hasSize(3);
		// A store that draws its tokens on demand answers none here, by contract
		fixture.fencing()
			.ofPlainAcquisitions(store)
			.check("fencing tokens of a multi-key acquisition", Arrays.stream(result.fencingTokens()).boxed().toList());
		keys.forEach(fixture::assertHeld);
		for (String key : keys) {
			assertThat(store.extend(key, token, LONG_TTL)).as("owned by the token: %s", key).isTrue();
		}
		assertThat(multiKey.tryAcquireAll(keys, fixture.uniqueToken(), LONG_TTL).isAcquired()).isFalse();
	}

	@Test
	default void multiKeyStoreTakesNothingWhenAnyKeyIsHeld() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		MultiKeyLockStore multiKey = fixture.multiKeyStore();
		List<String> keys = sortedKeys("none", 3);
		String holder = fixture.uniqueToken();
		assertThat(store.tryAcquire(keys.get(1), holder, Duration.ofSeconds(10)).isAcquired()).isTrue();
		String token = fixture.uniqueToken();
		MultiKeyAcquireReply result = multiKey.tryAcquireAll(keys, token, LONG_TTL);
		assertThat(result.isAcquired()).isFalse();
		assertThat(result.heldIndex()).isEqualTo(1);
		assertThat(result.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10));
		assertThat(result.fencingTokens()).isEmpty();
		for (String free : List.of(keys.get(0), keys.get(2))) {
			assertThat(store.extend(free, token, LONG_TTL)).as("%s was rolled back", free).isFalse();
			assertThat(store.tryAcquire(free, fixture.uniqueToken(), LONG_TTL).isAcquired()).as("%s is free", free)
				.isTrue();
		}
		assertThat(fixture.holderRemainingTtl(keys.get(1))).as("the holder's time-to-live is unchanged")
			.isLessThanOrEqualTo(Duration.ofSeconds(10));
		assertThat(store.release(keys.get(1), holder)).isTrue();
	}

	@Test
	default void multiKeyStoreReleasesOnlyTheLocksOfTheToken() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		MultiKeyLockStore multiKey = fixture.multiKeyStore();
		List<String> keys = sortedKeys("release", 2);
		String token = fixture.uniqueToken();
		assertThat(multiKey.tryAcquireAll(keys, token, LONG_TTL).isAcquired()).isTrue();
		String other = fixture.uniqueKey("release-other");
		String otherToken = fixture.uniqueToken();
		assertThat(store.tryAcquire(other, otherToken, LONG_TTL).isAcquired()).isTrue();
		assertThat(multiKey.releaseAll(List.of(keys.get(0), keys.get(1), other), fixture.uniqueToken()))
			.containsExactly(false, false, false);
		keys.forEach(fixture::assertHeld);
		assertThat(multiKey.releaseAll(List.of(keys.get(0), other, keys.get(1)), token)).containsExactly(true, false,
				true);
		fixture.assertHeld(other);
		assertThat(multiKey.releaseAll(keys, token)).containsExactly(false, false);
		assertThat(multiKey.tryAcquireAll(keys, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
	}

	@Test
	default void multiKeyStoreLocksExpireWithTheirTimeToLive() {
		StoreUnderTest fixture = storeUnderTest();
		MultiKeyLockStore multiKey = fixture.multiKeyStore();
		List<String> keys = sortedKeys("expiry", 2);
		assertThat(multiKey.tryAcquireAll(keys, fixture.uniqueToken(), SHORT_TTL).isAcquired()).isTrue();
		for (String key : keys) {
			fixture.awaitAcquired(key, fixture.uniqueToken(), LONG_TTL);
		}
	}

	@Test
	default void overlappingKeySetsInAnyOrderNeverHoldAKeyTwice() {
		StoreUnderTest fixture = storeUnderTest();
		MultiKeyLockStore multiKey = fixture.multiKeyStore();
		String a = fixture.uniqueKey("sets-a");
		String b = fixture.uniqueKey("sets-b");
		String c = fixture.uniqueKey("sets-c");
		List<List<String>> sets = List.of(List.of(a, b), List.of(b, a), List.of(a, c), List.of(c, b), List.of(b));
		ExclusionChecker.Result result = fixture.exclusionChecker()
			.checkSets(sets, (set) -> acquireAll(multiKey, set, fixture.uniqueToken()));
		assertNoKeyHeldTwice(result, List.of(a, b, c));
	}

	@Test
	default void singleKeyAndMultiKeyAcquisitionsNeverHoldAKeyTwice() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		MultiKeyLockStore multiKey = fixture.multiKeyStore();
		String a = fixture.uniqueKey("mixed-a");
		String b = fixture.uniqueKey("mixed-b");
		String c = fixture.uniqueKey("mixed-c");
		// A set of one key is taken by the single-key acquisition, the others all at once
		List<List<String>> sets = List.of(List.of(a, b), List.of(a), List.of(b, c), List.of(b), List.of(a, c),
				List.of(c));
		ExclusionChecker.Result result = fixture.exclusionChecker().checkSets(sets, (set) -> {
			String token = fixture.uniqueToken();
			if (set.size() == 1) {
				String key = set.get(0);
				return store.tryAcquire(key, token, LONG_TTL).isAcquired() ? () -> store.release(key, token) : null;
			}
			return acquireAll(multiKey, set, token);
		});
		assertNoKeyHeldTwice(result, List.of(a, b, c));
	}

	/** Take a set of keys at once, in sorted order; its release, or {@code null}. */
	private static ExclusionChecker.@Nullable Handle acquireAll(MultiKeyLockStore multiKey, List<String> set,
			String token) {
		List<String> sorted = set.stream().sorted().toList();
		return multiKey.tryAcquireAll(sorted, token, LONG_TTL).isAcquired() ? () -> multiKey.releaseAll(sorted, token)
				: null;
	}

	/**
	 * No key was held twice, enough acquisitions succeeded to make the check mean
	 * something, and every key is free afterwards.
	 */
	private void assertNoKeyHeldTwice(ExclusionChecker.Result result, List<String> keys) {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		assertThat(result.failures()).as(result.toString()).isEmpty();
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.overlaps()).as(result.toString()).isZero();
		assertThat(result.acquisitions()).as("acquisitions in " + result)
			.isGreaterThanOrEqualTo(result.attempts() / 20);
		for (String key : keys) {
			assertThat(store.tryAcquire(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
				.as("%s is free after the check", key)
				.isTrue();
		}
	}

	/** Return new keys, sorted as a multi-key store expects them. */
	private List<String> sortedKeys(String name, int count) {
		StoreUnderTest fixture = storeUnderTest();
		List<String> keys = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			keys.add(fixture.uniqueKey(name + "-" + i));
		}
		keys.sort(null);
		return keys;
	}

}
