package dev.lockstarter.test.contract;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReplyWithResult;
import dev.lockstarter.store.ResultStoringLockStore;

import static dev.lockstarter.test.contract.StoreUnderTest.EXPIRY_DEADLINE;
import static dev.lockstarter.test.contract.StoreUnderTest.EXPIRY_TOLERANCE;
import static dev.lockstarter.test.contract.StoreUnderTest.LONG_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.SHORT_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.printable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Results kept next to the locks of a {@link ResultStoringLockStore}: only the holder
 * keeps one, it outlives the release for its own time-to-live, it is binary-safe, and a
 * later holder replaces it. Skipped for other stores.
 */
interface ResultContract extends StoreContract {

	@Test
	default void holderKeepsAResultThatOutlivesTheRelease() {
		StoreUnderTest fixture = storeUnderTest();
		ResultStoringLockStore results = fixture.resultStore();
		String key = fixture.uniqueKey("result");
		String token = fixture.uniqueToken();
		assertThat(results.getResult(key)).as("result before any holder kept one").isNull();
		assertThat(results.tryAcquire(key, token, LONG_TTL).isAcquired()).isTrue();
		assertThat(results.putResult(key, token, bytes("{\"sum\":3}"), LONG_TTL)).isTrue();
		assertThat(results.release(key, token)).isTrue();
		assertThat(results.getResult(key)).isEqualTo(bytes("{\"sum\":3}"));
	}

	@Test
	default void anAcquisitionReadsTheResultKeptForItsKey() {
		StoreUnderTest fixture = storeUnderTest();
		ResultStoringLockStore results = fixture.resultStore();
		String key = fixture.uniqueKey("result-read");
		String first = fixture.uniqueToken();
		AcquireReplyWithResult none = results.tryAcquireReadingResult(key, first, LONG_TTL);
		assertThat(none.acquisition().isAcquired()).isTrue();
		assertThat(none.keptResult()).as("result before any holder kept one").isNull();
		assertThat(results.putResult(key, first, bytes("kept"), LONG_TTL)).isTrue();
		AcquireReplyWithResult held = results.tryAcquireReadingResult(key, fixture.uniqueToken(), LONG_TTL);
		assertThat(held.acquisition().isAcquired()).isFalse();
		assertThat(held.acquisition().holderRemainingTtl()).isPositive();
		assertThat(held.keptResult()).as("result read by a caller that found the lock held").isEqualTo(bytes("kept"));
		assertThat(results.release(key, first)).isTrue();
		String next = fixture.uniqueToken();
		AcquireReplyWithResult after = results.tryAcquireReadingResult(key, next, LONG_TTL);
		assertThat(after.acquisition().isAcquired()).isTrue();
		assertThat(after.keptResult()).isEqualTo(bytes("kept"));
		assertThat(results.release(key, next)).isTrue();
	}

	@Test
	default void onlyTheHolderReleasesKeepingAResult() {
		StoreUnderTest fixture = storeUnderTest();
		ResultStoringLockStore results = fixture.resultStore();
		String key = fixture.uniqueKey("result-release");
		String owner = fixture.uniqueToken();
		assertThat(results.releaseKeepingResult(key, owner, bytes("free"), LONG_TTL)).as("a free key").isFalse();
		assertThat(results.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		assertThat(results.releaseKeepingResult(key, fixture.uniqueToken(), bytes("intruder"), LONG_TTL)).isFalse();
		assertThat(results.getResult(key)).isNull();
		assertThat(results.tryAcquire(key, fixture.uniqueToken(), LONG_TTL).isAcquired()).as("still held").isFalse();
		assertThat(results.releaseKeepingResult(key, owner, bytes("{\"sum\":3}"), LONG_TTL)).isTrue();
		assertThat(results.getResult(key)).isEqualTo(bytes("{\"sum\":3}"));
		String next = fixture.uniqueToken();
		assertThat(results.tryAcquire(key, next, LONG_TTL).isAcquired()).as("released").isTrue();
		assertThat(results.releaseKeepingResult(key, owner, bytes("late"), LONG_TTL)).as("after the release").isFalse();
		assertThat(results.getResult(key)).isEqualTo(bytes("{\"sum\":3}"));
		assertThat(results.release(key, next)).isTrue();
	}

	@Test
	default void onlyTheHolderCanKeepAResult() {
		StoreUnderTest fixture = storeUnderTest();
		ResultStoringLockStore results = fixture.resultStore();
		String key = fixture.uniqueKey("result-owner");
		String owner = fixture.uniqueToken();
		assertThat(results.putResult(key, owner, bytes("unlocked"), LONG_TTL)).as("result of a free key").isFalse();
		assertThat(results.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		assertThat(results.putResult(key, fixture.uniqueToken(), bytes("intruder"), LONG_TTL)).isFalse();
		assertThat(results.getResult(key)).isNull();
		assertThat(results.release(key, owner)).isTrue();
		assertThat(results.putResult(key, owner, bytes("late"), LONG_TTL)).as("result after the release").isFalse();
		assertThat(results.getResult(key)).isNull();
	}

	@Test
	default void staleHolderCannotReplaceTheNewHoldersResult() {
		StoreUnderTest fixture = storeUnderTest();
		ResultStoringLockStore results = fixture.resultStore();
		String key = fixture.uniqueKey("result-stale");
		String stale = fixture.uniqueToken();
		assertThat(results.tryAcquire(key, stale, SHORT_TTL).isAcquired()).isTrue();
		String current = fixture.uniqueToken();
		fixture.awaitAcquired(key, current, LONG_TTL);
		assertThat(results.putResult(key, current, bytes("current"), LONG_TTL)).isTrue();
		assertThat(results.putResult(key, stale, bytes("stale"), LONG_TTL)).isFalse();
		assertThat(results.getResult(key)).isEqualTo(bytes("current"));
		assertThat(results.release(key, current)).isTrue();
	}

	@Test
	default void laterHolderReplacesTheResult() {
		StoreUnderTest fixture = storeUnderTest();
		ResultStoringLockStore results = fixture.resultStore();
		String key = fixture.uniqueKey("result-replaced");
		for (String value : List.of("first", "second")) {
			String token = fixture.uniqueToken();
			assertThat(results.tryAcquire(key, token, LONG_TTL).isAcquired()).isTrue();
			assertThat(results.putResult(key, token, bytes(value), LONG_TTL)).isTrue();
			assertThat(results.release(key, token)).isTrue();
		}
		assertThat(results.getResult(key)).isEqualTo(bytes("second"));
	}

	@Test
	default void resultIsGoneOnceItsTimeToLivePasses() {
		StoreUnderTest fixture = storeUnderTest();
		ResultStoringLockStore results = fixture.resultStore();
		String key = fixture.uniqueKey("result-expiry");
		String token = fixture.uniqueToken();
		assertThat(results.tryAcquire(key, token, LONG_TTL).isAcquired()).isTrue();
		long start = System.nanoTime();
		assertThat(results.putResult(key, token, bytes("short-lived"), SHORT_TTL)).isTrue();
		assertThat(results.release(key, token)).isTrue();
		await().alias("result of " + printable(key) + ", stored with a time-to-live of " + SHORT_TTL + ", gone")
			.atMost(EXPIRY_DEADLINE.minusNanos(System.nanoTime() - start))
			.pollInterval(Duration.ofMillis(10))
			.pollInSameThread()
			.until(() -> results.getResult(key) == null);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the result was gone")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE));
	}

	@Test
	default void resultsAreBinarySafeAndBelongToTheirKey() {
		StoreUnderTest fixture = storeUnderTest();
		ResultStoringLockStore results = fixture.resultStore();
		byte[] everyByte = new byte[256 * 64];
		for (int i = 0; i < everyByte.length; i++) {
			everyByte[i] = (byte) i;
		}
		String key = fixture.uniqueKey("result-binary");
		String other = key + ":other";
		String token = fixture.uniqueToken();
		String otherToken = fixture.uniqueToken();
		assertThat(results.tryAcquire(key, token, LONG_TTL).isAcquired()).isTrue();
		assertThat(results.tryAcquire(other, otherToken, LONG_TTL).isAcquired()).isTrue();
		assertThat(results.putResult(key, token, everyByte, LONG_TTL)).isTrue();
		assertThat(results.putResult(other, otherToken, new byte[0], LONG_TTL)).isTrue();
		assertThat(results.getResult(key)).isEqualTo(everyByte);
		assertThat(results.getResult(other)).isEmpty();
		assertThat(results.release(key, token)).isTrue();
		assertThat(results.release(other, otherToken)).isTrue();
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
