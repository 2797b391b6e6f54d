package dev.lockstarter.test.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.Events;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.test.EngineTestKitOnly;
import dev.lockstarter.test.contract.LockStoreContractTests;

import static dev.lockstarter.test.EngineTestKitRuns.run;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;

/**
 * Negative controls for the key and restart tests of {@link LockStoreContractTests}:
 * stores that map keys the way naive Memcached or DynamoDB code does must fail them.
 */
class KeyManglingStoresFailTheContractTests {

	@Test
	void storeThatSanitizesAndTruncatesKeysFailsTheKeyTests() {
		assertFails(Sanitizing.class, "keysThatASanitizerWouldMergeAreDistinctLocks");
		assertFails(Sanitizing.class, "veryLongKeysAreDistinctLocks");
		assertFails(Sanitizing.class, "keysWithUnusualCharactersAreDistinctLocks");
	}

	@Test
	void storeThatHashesOnlySomeKeysWithoutMarkingThemFailsTheLookalikeTest() {
		assertFails(HashingWithoutEscape.class, "keysThatLookLikeTheHashOfAnotherKeyAreDistinctLocks");
		assertPasses(HashingWithoutEscape.class, "keysThatASanitizerWouldMergeAreDistinctLocks");
		assertPasses(HashingWithoutEscape.class, "veryLongKeysAreDistinctLocks");
	}

	@Test
	void restartThatKeepsTheLocksOfAStoreSaidToLoseThemIsCaught() {
		assertFails(RestartKeepsLocks.class, "storeAnswersAgainAfterItsServerRestarts");
	}

	@Test
	void storeWithoutServerSkipsTheRestartTest() {
		run(HashingWithoutEscape.class, "storeAnswersAgainAfterItsServerRestarts")
			.assertStatistics((stats) -> stats.started(1).aborted(1));
	}

	private static void assertFails(Class<? extends LockStoreContractTests> suite, String test) {
		Events events = run(suite, test);
		events.assertStatistics((stats) -> stats.started(1).failed(1));
		events.assertThatEvents().haveExactly(1, finishedWithFailure(instanceOf(AssertionError.class)));
	}

	private static void assertPasses(Class<? extends LockStoreContractTests> suite, String test) {
		run(suite, test).assertStatistics((stats) -> stats.started(1).succeeded(1));
	}

	/**
	 * Replaces what a text protocol cannot carry with {@code _} and cuts keys to 250
	 * characters.
	 */
	@EngineTestKitOnly
	static class Sanitizing extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new KeyMappingLockStore((key) -> {
				String sanitized = key.replaceAll("[\\x00-\\x20\\x7f-\\x{10ffff}]", "_");
				return (sanitized.length() > 250) ? sanitized.substring(0, 250) : sanitized;
			});
		}

	}

	/**
	 * Hashes keys that are not plain ASCII, but leaves a plain key that looks like a hash
	 * as it is.
	 */
	@EngineTestKitOnly
	static class HashingWithoutEscape extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new KeyMappingLockStore(
					(key) -> key.matches("[\\x21-\\x7e]{1,250}") ? key : "#sha256:" + sha256(key));
		}

	}

	/**
	 * Claims that a restart loses the locks, but its "restart" keeps them.
	 */
	@EngineTestKitOnly
	static class RestartKeepsLocks extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new InMemoryLockStore();
		}

		@Override
		protected void restartServer() {
		}

	}

	private static String sha256(String key) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
			return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * An in-memory store that maps every key before use.
	 */
	private static final class KeyMappingLockStore implements LockStore {

		private final InMemoryLockStore delegate = new InMemoryLockStore();

		private final UnaryOperator<String> mapping;

		KeyMappingLockStore(UnaryOperator<String> mapping) {
			this.mapping = mapping;
		}

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			return this.delegate.tryAcquire(this.mapping.apply(key), token, ttl);
		}

		@Override
		public boolean release(String key, String token) {
			return this.delegate.release(this.mapping.apply(key), token);
		}

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			return this.delegate.extend(this.mapping.apply(key), token, ttl);
		}

		@Override
		public Duration timeToExpiry(String key) {
			return this.delegate.timeToExpiry(this.mapping.apply(key));
		}

	}

}
