package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.function.Supplier;

import org.junit.jupiter.api.Assumptions;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import dev.lockstarter.store.SharedLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The store a {@link LockStoreContractTests} suite runs against, created before each
 * test, with the keys, tokens and checks its contract tests share. Keys, tokens, the
 * exclusion checker and the server restart come from the suite, so that a subclass can
 * adapt them.
 */
final class StoreUnderTest {

	/** A time-to-live that does not pass during a test. */
	static final Duration LONG_TTL = Duration.ofSeconds(30);

	/** A time-to-live that a test waits out. */
	static final Duration SHORT_TTL = Duration.ofMillis(200);

	/** The longest a test waits for a lock to expire. */
	static final Duration EXPIRY_DEADLINE = Duration.ofSeconds(5);

	/**
	 * How much earlier than its time-to-live a lock may be seen expired (millisecond
	 * rounding).
	 */
	static final Duration EXPIRY_TOLERANCE = Duration.ofMillis(10);

	private final LockStoreContractTests suite;

	private final LockStore store;

	StoreUnderTest(LockStoreContractTests suite, LockStore store) {
		this.suite = suite;
		this.store = store;
	}

	LockStore store() {
		return this.store;
	}

	String uniqueKey(String name) {
		return this.suite.uniqueKey(name);
	}

	String uniqueToken() {
		return this.suite.uniqueToken();
	}

	ExclusionChecker exclusionChecker() {
		return this.suite.exclusionChecker();
	}

	void restartServer() {
		this.suite.restartServer();
	}

	boolean locksSurviveServerRestart() {
		return this.suite.locksSurviveServerRestart();
	}

	/** Whether the store issues fencing tokens, as its suite declares. */
	DeclaredFencing fencing() {
		return DeclaredFencing.of(this.suite.issuesFencingTokens(), this.store);
	}

	/**
	 * The store as a {@link ResultStoringLockStore}; the test is skipped if it is not
	 * one.
	 */
	ResultStoringLockStore resultStore() {
		Assumptions.assumeTrue(this.store instanceof ResultStoringLockStore,
				() -> this.store.getClass().getSimpleName() + " keeps no results");
		return (ResultStoringLockStore) this.store;
	}

	/** The store as a {@link MultiKeyLockStore}; the test is skipped if it is not one. */
	MultiKeyLockStore multiKeyStore() {
		Assumptions.assumeTrue(this.store instanceof MultiKeyLockStore, () -> this.store.getClass().getSimpleName()
				+ " has no multi-key acquisition; " + "LockOperationsContractTests covers its generic path");
		return (MultiKeyLockStore) this.store;
	}

	/**
	 * The store as an {@link InspectableLockStore}; the test is skipped if it is not one.
	 */
	InspectableLockStore inspectableStore() {
		Assumptions.assumeTrue(this.store instanceof InspectableLockStore,
				() -> this.store.getClass().getSimpleName() + " lists no holders");
		return (InspectableLockStore) this.store;
	}

	/**
	 * The store as a {@link SharedLockStore}; the test is skipped if it is not one.
	 */
	SharedLockStore sharedStore() {
		Assumptions.assumeTrue(this.store instanceof SharedLockStore,
				() -> this.store.getClass().getSimpleName() + " keeps no permits or read/write locks");
		return (SharedLockStore) this.store;
	}

	/** Another owner cannot take the key, and its holder has time left. */
	void assertHeld(String key) {
		AcquireReply result = this.store.tryAcquire(key, uniqueToken(), LONG_TTL);
		assertThat(result.isAcquired()).as("another owner acquired %s, which should be held", printable(key)).isFalse();
		assertThat(result.holderRemainingTtl()).as("holder's remaining time-to-live of %s", printable(key))
			.isPositive();
	}

	/** The time-to-live the holder of a key has left, as a conflicting owner sees it. */
	Duration holderRemainingTtl(String key) {
		AcquireReply result = this.store.tryAcquire(key, uniqueToken(), LONG_TTL);
		assertThat(result.isAcquired()).as("another owner acquired %s, which should be held", printable(key)).isFalse();
		return result.holderRemainingTtl();
	}

	/**
	 * Try to take a place of a shared key until it is granted, within
	 * {@link #EXPIRY_DEADLINE}.
	 */
	void awaitGranted(String key, Supplier<AcquireReply> acquisition) {
		await("a place on " + printable(key)).atMost(EXPIRY_DEADLINE)
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(5))
			.until(() -> acquisition.get().isAcquired());
	}

	/** Try to acquire a key until it is free again, within {@link #EXPIRY_DEADLINE}. */
	void awaitAcquired(String key, String token, Duration ttl) {
		await("lock " + printable(key) + " free again").atMost(EXPIRY_DEADLINE)
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(5))
			.until(() -> this.store.tryAcquire(key, token, ttl).isAcquired());
	}

	static void sleepUntil(long nanoTime) {
		long remaining = nanoTime - System.nanoTime();
		if (remaining > 0) {
			sleep(Duration.ofNanos(remaining));
		}
	}

	static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis(), (int) (duration.toNanos() % 1_000_000));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	/** A key as a failure message shows it: control characters escaped, long keys cut. */
	static String printable(String key) {
		String shown = (key.length() > 300) ? key.substring(0, 300) + "... (" + key.length() + " chars)" : key;
		return "'" + shown.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t").replace("\u0000", "\\0")
				+ "'";
	}

}
