package dev.lockstarter.test.contract;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.FencingOnDemandLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.AcquireReplyWithResult;
import dev.lockstarter.store.ResultStoringLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The contract every {@link LockStore} must pass: acquisition and conflict, expiry,
 * owner-only release and extension (including by a stale holder whose lock expired and
 * was taken over), the read-only {@link LockStore#timeToExpiry(String) time to expiry} of
 * free, held, extended, released and expired locks, independence of keys, binary-safe
 * keys, and mutual exclusion under contention.
 * <p>
 * Keys are arbitrary strings: keys with spaces, line breaks, control or non-ASCII
 * characters, keys that spell protocol commands (such as {@code "\r\nflush_all"}), keys
 * that look like the hash of another key, and keys of a megabyte must all be distinct
 * locks that leave other locks alone, even though
 * {@link dev.lockstarter.core.LockTemplate} itself only passes keys of at most 250 bytes.
 * <p>
 * Subclasses return the store under test from {@link #createStore()}, which is called
 * before each test; {@link #destroyStore(LockStore)} is called after it. Every test uses
 * its own random keys, so tests do not interfere through a shared server.
 * <p>
 * A store that keeps results next to its locks ({@link ResultStoringLockStore}) is also
 * checked for that: only the holder stores a result, it outlives the release for its own
 * time-to-live, it is binary-safe, and a later holder replaces it. Other stores skip
 * those tests.
 * <p>
 * A store that takes the locks of several keys at once ({@link MultiKeyLockStore}) is
 * checked for that too: all keys or none, a held key leaves the others free and its
 * holder's time-to-live unchanged, release only by token, and overlapping sets named in
 * any order never hold a key twice. Other stores skip those tests; their multi-key locks
 * are taken by {@link dev.lockstarter.core.LockTemplate}, which
 * {@link LockOperationsContractTests} checks.
 * <p>
 * A store backed by a server implements {@link #restartServer()}, and the suite checks
 * that the store answers again after the restart without being recreated, and that the
 * locks held before are gone, or, if {@link #locksSurviveServerRestart()} says so, still
 * held. Stores without a server (in memory) skip that test.
 *
 * <pre class="code">
 * class MyLockStoreContractTests extends LockStoreContractTests {
 *
 *     &#64;Override
 *     protected LockStore createStore() {
 *         return new MyLockStore(...);
 *     }
 *
 * }
 * </pre>
 *
 * The suite takes a few seconds: expiry is tested with time-to-lives of a few hundred
 * milliseconds, so a store must expire locks with a precision of tens of milliseconds.
 *
 * @since 0.1.0
 */
public abstract class LockStoreContractTests {

	/** A time-to-live that does not pass during a test. */
	private static final Duration LONG_TTL = Duration.ofSeconds(30);

	/** A time-to-live that a test waits out. */
	private static final Duration SHORT_TTL = Duration.ofMillis(200);

	/** The longest a test waits for a lock to expire. */
	private static final Duration EXPIRY_DEADLINE = Duration.ofSeconds(5);

	/**
	 * How much earlier than its time-to-live a lock may be seen expired (millisecond
	 * rounding).
	 */
	private static final Duration EXPIRY_TOLERANCE = Duration.ofMillis(10);

	/**
	 * The longest a test waits for a store to answer again after its server restarted.
	 */
	private static final Duration RECOVERY_DEADLINE = Duration.ofSeconds(15);

	/**
	 * The marker of hashed keys, as used by {@link dev.lockstarter.core.LockTemplate}.
	 */
	private static final String HASH_MARKER = "#sha256:";

	private LockStore store;

	/**
	 * Create the store under test. Called before each test.
	 * @return the store
	 */
	protected abstract LockStore createStore();

	/**
	 * Release the resources of a store created by {@link #createStore()}. Called after
	 * each test; does nothing by default.
	 * @param store the store
	 */
	protected void destroyStore(LockStore store) {
	}

	/**
	 * Restart the server behind the store, for the test that checks the store recovers.
	 * The store returned by {@link #createStore()} must not be recreated. By default the
	 * test is skipped: a store without a server has nothing to restart.
	 */
	protected void restartServer() {
		Assumptions.abort("The store under test has no server to restart");
	}

	/**
	 * Return whether the server keeps its locks across {@link #restartServer()}, as a
	 * durable store does; by default it does not, as Memcached or a Redis without
	 * persistence.
	 * @return {@code true} if locks survive a restart
	 */
	protected boolean locksSurviveServerRestart() {
		return false;
	}

	/**
	 * Return the checker that runs contending threads against the store: 8 threads of 200
	 * attempts each by default. A store whose server answers only a few hundred requests
	 * a second may lower the attempts to keep the suite fast; it should keep at least 8
	 * threads, so that the keys stay contended.
	 * @return the exclusion checker
	 */
	protected ExclusionChecker exclusionChecker() {
		return new ExclusionChecker().threads(8).attemptsPerThread(200);
	}

	/**
	 * Return the store under test, for additional tests in subclasses.
	 * @return the store
	 */
	protected final LockStore store() {
		return this.store;
	}

	/**
	 * Return a store key that no other test uses.
	 * @param name a readable part of the key
	 * @return the key
	 */
	protected String uniqueKey(String name) {
		return "lock-test:" + name + ":" + UUID.randomUUID();
	}

	/**
	 * Return an owner token that no other acquisition uses.
	 * @return the token
	 */
	protected String uniqueToken() {
		return UUID.randomUUID().toString();
	}

	@BeforeEach
	void setUpStore() {
		this.store = createStore();
	}

	@AfterEach
	void tearDownStore() {
		if (this.store != null) {
			destroyStore(this.store);
		}
	}

	@Test
	void freeKeyIsAcquired() {
		AcquireReply result = this.store.tryAcquire(uniqueKey("free"), uniqueToken(), LONG_TTL);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.holderRemainingTtl()).isZero();
	}

	@Test
	void secondOwnerIsRejectedWhileFirstHoldsTheLock() {
		String key = uniqueKey("conflict");
		Duration ttl = Duration.ofSeconds(10);
		assertThat(this.store.tryAcquire(key, uniqueToken(), ttl).isAcquired()).isTrue();
		AcquireReply second = this.store.tryAcquire(key, uniqueToken(), ttl);
		assertThat(second.isAcquired()).isFalse();
		assertThat(second.holderRemainingTtl()).isPositive()
			.isLessThanOrEqualTo(ttl)
			.isGreaterThan(ttl.minusSeconds(5));
	}

	@Test
	void releasedLockCanBeAcquiredAgain() {
		String key = uniqueKey("reacquire");
		String first = uniqueToken();
		assertThat(this.store.tryAcquire(key, first, LONG_TTL).isAcquired()).isTrue();
		assertThat(this.store.release(key, first)).isTrue();
		String second = uniqueToken();
		assertThat(this.store.tryAcquire(key, second, LONG_TTL).isAcquired()).isTrue();
		assertHeld(key);
		assertThat(this.store.release(key, second)).isTrue();
	}

	@Test
	void lockIsFreeAgainOnceItsTimeToLivePasses() {
		String key = uniqueKey("expiry");
		long start = System.nanoTime();
		assertThat(this.store.tryAcquire(key, uniqueToken(), SHORT_TTL).isAcquired()).isTrue();
		assertHeld(key);
		String next = uniqueToken();
		awaitAcquired(key, next, LONG_TTL);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the lock was free again")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE));
		assertHeld(key);
		assertThat(this.store.release(key, next)).isTrue();
	}

	@Test
	void onlyTheOwnerCanRelease() {
		String key = uniqueKey("release-owner");
		String owner = uniqueToken();
		assertThat(this.store.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		assertThat(this.store.release(key, uniqueToken())).isFalse();
		assertHeld(key);
		assertThat(this.store.release(key, owner)).isTrue();
	}

	@Test
	void onlyTheOwnerCanExtend() {
		String key = uniqueKey("extend-owner");
		Duration ttl = Duration.ofSeconds(10);
		String owner = uniqueToken();
		assertThat(this.store.tryAcquire(key, owner, ttl).isAcquired()).isTrue();
		assertThat(this.store.extend(key, uniqueToken(), Duration.ofMinutes(5))).isFalse();
		assertThat(holderRemainingTtl(key)).as("holder's time-to-live after another owner's extend")
			.isLessThanOrEqualTo(ttl);
		assertThat(this.store.extend(key, owner, Duration.ofMinutes(5))).isTrue();
		assertThat(this.store.release(key, owner)).isTrue();
	}

	@Test
	void staleHolderCannotReleaseTheNewHoldersLock() {
		String key = uniqueKey("stale-release");
		String stale = uniqueToken();
		assertThat(this.store.tryAcquire(key, stale, SHORT_TTL).isAcquired()).isTrue();
		String current = uniqueToken();
		awaitAcquired(key, current, LONG_TTL);
		assertThat(this.store.release(key, stale)).as("release by the holder whose lock expired").isFalse();
		assertHeld(key);
		assertThat(this.store.release(key, current)).isTrue();
	}

	@Test
	void staleHolderCannotExtendTheNewHoldersLock() {
		String key = uniqueKey("stale-extend");
		String stale = uniqueToken();
		assertThat(this.store.tryAcquire(key, stale, SHORT_TTL).isAcquired()).isTrue();
		String current = uniqueToken();
		Duration ttl = Duration.ofSeconds(10);
		awaitAcquired(key, current, ttl);
		assertThat(this.store.extend(key, stale, Duration.ofMinutes(5))).as("extend by the holder whose lock expired")
			.isFalse();
		assertThat(holderRemainingTtl(key)).as("new holder's time-to-live after the stale holder's extend")
			.isLessThanOrEqualTo(ttl);
		assertThat(this.store.release(key, current)).isTrue();
	}

	@Test
	void expiredLockCannotBeExtended() throws InterruptedException {
		String key = uniqueKey("expired-extend");
		String owner = uniqueToken();
		assertThat(this.store.tryAcquire(key, owner, SHORT_TTL).isAcquired()).isTrue();
		Thread.sleep(SHORT_TTL.plusMillis(100).toMillis());
		assertThat(this.store.extend(key, owner, LONG_TTL)).isFalse();
		assertThat(this.store.tryAcquire(key, uniqueToken(), LONG_TTL).isAcquired())
			.as("acquire after a failed extend of an expired lock")
			.isTrue();
	}

	@Test
	void extendByTheOwnerResetsTheTimeToLive() throws InterruptedException {
		String key = uniqueKey("extend");
		String owner = uniqueToken();
		Duration ttl = Duration.ofMillis(500);
		long start = System.nanoTime();
		assertThat(this.store.tryAcquire(key, owner, ttl).isAcquired()).isTrue();
		Thread.sleep(100);
		Duration extended = Duration.ofSeconds(3);
		assertThat(this.store.extend(key, owner, extended)).isTrue();
		sleepUntil(start + ttl.plusMillis(100).toNanos());
		assertThat(holderRemainingTtl(key)).as("time-to-live after the original one passed")
			.isLessThanOrEqualTo(extended)
			.isGreaterThan(extended.minus(ttl).minusSeconds(1));
		assertThat(this.store.release(key, owner)).isTrue();
	}

	@Test
	void extendCountsTheNewTimeToLiveFromNow() {
		String key = uniqueKey("extend-shorter");
		String owner = uniqueToken();
		long start = System.nanoTime();
		assertThat(this.store.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		assertThat(this.store.extend(key, owner, SHORT_TTL)).isTrue();
		assertThat(holderRemainingTtl(key)).isLessThanOrEqualTo(SHORT_TTL);
		awaitAcquired(key, uniqueToken(), LONG_TTL);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the lock was free again")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE));
	}

	@Test
	void differentKeysAreIndependent() {
		String first = uniqueKey("independent-1");
		String second = uniqueKey("independent-2");
		String firstOwner = uniqueToken();
		String secondOwner = uniqueToken();
		assertThat(this.store.tryAcquire(first, firstOwner, LONG_TTL).isAcquired()).isTrue();
		assertThat(this.store.tryAcquire(second, secondOwner, LONG_TTL).isAcquired()).isTrue();
		assertThat(this.store.release(second, firstOwner)).isFalse();
		assertThat(this.store.extend(second, firstOwner, LONG_TTL)).isFalse();
		assertThat(this.store.release(first, firstOwner)).isTrue();
		assertHeld(second);
		assertThat(this.store.tryAcquire(first, uniqueToken(), LONG_TTL).isAcquired()).isTrue();
		assertThat(this.store.release(second, secondOwner)).isTrue();
	}

	@Test
	void failedAcquisitionDoesNotChangeTheHoldersTimeToLive() throws InterruptedException {
		String key = uniqueKey("failed-acquire");
		Duration ttl = Duration.ofSeconds(1);
		long start = System.nanoTime();
		assertThat(this.store.tryAcquire(key, uniqueToken(), ttl).isAcquired()).isTrue();
		AcquireReply first = this.store.tryAcquire(key, uniqueToken(), LONG_TTL);
		assertThat(first.isAcquired()).isFalse();
		assertThat(first.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(ttl);
		Thread.sleep(150);
		AcquireReply second = this.store.tryAcquire(key, uniqueToken(), LONG_TTL);
		assertThat(second.isAcquired()).isFalse();
		assertThat(second.holderRemainingTtl()).as("remaining time-to-live reported by a later conflict")
			.isLessThanOrEqualTo(first.holderRemainingTtl().minusMillis(100));
		awaitAcquired(key, uniqueToken(), LONG_TTL);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the lock was free again")
			.isGreaterThanOrEqualTo(ttl.minus(EXPIRY_TOLERANCE))
			.isLessThan(ttl.plusSeconds(2));
	}

	@Test
	void timeToExpiryOfAFreeKeyIsZero() {
		assertThat(this.store.timeToExpiry(uniqueKey("tte-free"))).isZero();
	}

	@Test
	void timeToExpiryOfAHeldKeyIsTheHoldersRemainingTimeToLive() {
		String key = uniqueKey("tte-held");
		String owner = uniqueToken();
		assertThat(this.store.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		assertThat(this.store.timeToExpiry(key)).as("time to expiry of a key held for %s", LONG_TTL)
			.isPositive()
			.isLessThanOrEqualTo(LONG_TTL)
			.isGreaterThan(LONG_TTL.minusSeconds(2));
		assertThat(this.store.release(key, owner)).isTrue();
		assertThat(this.store.timeToExpiry(key)).as("time to expiry after the release").isZero();
	}

	@Test
	void timeToExpiryIsZeroOnceTheTimeToLivePasses() {
		String key = uniqueKey("tte-expiry");
		long start = System.nanoTime();
		assertThat(this.store.tryAcquire(key, uniqueToken(), SHORT_TTL).isAcquired()).isTrue();
		assertThat(this.store.timeToExpiry(key)).isPositive().isLessThanOrEqualTo(SHORT_TTL);
		long deadline = start + EXPIRY_DEADLINE.toNanos();
		while (!this.store.timeToExpiry(key).isZero()) {
			if (System.nanoTime() - deadline > 0) {
				fail("Lock %s was still reported held %s after it was taken for %s", printable(key), EXPIRY_DEADLINE,
						SHORT_TTL);
			}
			sleep(Duration.ofMillis(5));
		}
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the lock was reported free")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE));
		assertThat(this.store.timeToExpiry(key)).as("time to expiry once the lock expired").isZero();
		awaitAcquired(key, uniqueToken(), LONG_TTL);
	}

	@Test
	void timeToExpiryFollowsAnExtension() {
		String key = uniqueKey("tte-extend");
		String owner = uniqueToken();
		Duration ttl = Duration.ofSeconds(10);
		assertThat(this.store.tryAcquire(key, owner, ttl).isAcquired()).isTrue();
		Duration before = this.store.timeToExpiry(key);
		assertThat(before).isPositive().isLessThanOrEqualTo(ttl);
		assertThat(this.store.extend(key, owner, LONG_TTL)).isTrue();
		assertThat(this.store.timeToExpiry(key)).as("time to expiry after an extension to %s", LONG_TTL)
			.isGreaterThan(before)
			.isGreaterThan(LONG_TTL.minusSeconds(2))
			.isLessThanOrEqualTo(LONG_TTL);
		assertThat(this.store.release(key, owner)).isTrue();
	}

	@Test
	void readingTheTimeToExpiryLeavesTheLockAlone() {
		String key = uniqueKey("tte-read-only");
		String owner = uniqueToken();
		Duration ttl = Duration.ofSeconds(10);
		assertThat(this.store.tryAcquire(key, owner, ttl).isAcquired()).isTrue();
		for (int i = 0; i < 3; i++) {
			assertThat(this.store.timeToExpiry(key)).isPositive().isLessThanOrEqualTo(ttl);
		}
		assertThat(this.store.tryAcquire(key, uniqueToken(), LONG_TTL).isAcquired())
			.as("another owner's acquisition after the time to expiry was read")
			.isFalse();
		assertThat(holderRemainingTtl(key)).as("holder's time-to-live after the time to expiry was read")
			.isLessThanOrEqualTo(ttl);
		assertThat(this.store.timeToExpiry(uniqueKey("tte-other"))).isZero();
		assertThat(this.store.release(key, owner)).as("release by the holder after the time to expiry was read")
			.isTrue();
		assertThat(this.store.timeToExpiry(key)).isZero();
		assertThat(this.store.tryAcquire(key, uniqueToken(), LONG_TTL).isAcquired()).isTrue();
	}

	@Test
	void releasingTwiceReturnsFalseTheSecondTime() {
		String key = uniqueKey("release-twice");
		String owner = uniqueToken();
		assertThat(this.store.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		assertThat(this.store.release(key, owner)).isTrue();
		assertThat(this.store.release(key, owner)).isFalse();
	}

	@Test
	void releasingAKeyThatWasNeverLockedReturnsFalse() {
		assertThat(this.store.release(uniqueKey("never-locked"), uniqueToken())).isFalse();
	}

	@Test
	void extendingAKeyThatWasNeverLockedReturnsFalseAndDoesNotLockIt() {
		String key = uniqueKey("never-locked");
		String token = uniqueToken();
		assertThat(this.store.extend(key, token, LONG_TTL)).isFalse();
		assertThat(this.store.tryAcquire(key, uniqueToken(), LONG_TTL).isAcquired()).isTrue();
	}

	@Test
	void keysWithUnusualCharactersAreDistinctLocks() {
		String base = uniqueKey("unusual");
		List<String> keys = List.of(base + " with spaces", base + "with spaces", base + "with\tspaces", base + ":",
				base + "::", base + "ünïcödé 锁 🔒", base + "unicode", base + "\r\n", base + "\n", base + "\r\n\r\n",
				base + "\r\n*1\r\n$8\r\nFLUSHALL\r\n", base + "\"'`$%{}[]*?\\", base + "\u0000", base + "#sha256:x");
		List<String> tokens = new ArrayList<>();
		for (String key : keys) {
			String token = uniqueToken();
			assertThat(this.store.tryAcquire(key, token, LONG_TTL).isAcquired()).as("acquire %s", printable(key))
				.isTrue();
			tokens.add(token);
		}
		for (String key : keys) {
			assertHeld(key);
		}
		for (int i = 0; i < keys.size(); i++) {
			assertThat(this.store.release(keys.get(i), tokens.get(i))).as("release %s", printable(keys.get(i)))
				.isTrue();
			assertThat(this.store.release(keys.get(i), tokens.get(i))).isFalse();
		}
	}

	@Test
	void keysOfTheMaximumLengthAreDistinctLocks() {
		String base = uniqueKey("long") + ":ü";
		StringBuilder padding = new StringBuilder(base);
		while (padding.toString().getBytes(StandardCharsets.UTF_8).length < 249) {
			padding.append('x');
		}
		String first = padding + "a";
		String second = padding + "b";
		assertThat(first.getBytes(StandardCharsets.UTF_8)).hasSize(250);
		String firstOwner = uniqueToken();
		String secondOwner = uniqueToken();
		assertThat(this.store.tryAcquire(first, firstOwner, LONG_TTL).isAcquired()).isTrue();
		assertThat(this.store.tryAcquire(second, secondOwner, LONG_TTL).isAcquired()).isTrue();
		assertHeld(first);
		assertThat(this.store.release(first, firstOwner)).isTrue();
		assertThat(this.store.release(second, secondOwner)).isTrue();
	}

	@Test
	void keysThatSpellProtocolCommandsDoNotAffectOtherLocks() {
		String canary = uniqueKey("canary");
		String canaryOwner = uniqueToken();
		assertThat(this.store.tryAcquire(canary, canaryOwner, LONG_TTL).isAcquired()).isTrue();
		String base = uniqueKey("injection");
		int canaryBytes = canary.getBytes(StandardCharsets.UTF_8).length;
		List<String> keys = List.of(base + "\r\nflush_all", base + "\r\nflush_all\r\n", "\r\nflush_all\r\n" + base,
				base + "\nflush_all\n", base + " 0 0 1\r\nx\r\nflush_all\r\n", base + "\r\ndelete " + canary + "\r\n",
				base + "\r\nmd " + canary + "\r\n", base + "\r\nflush_all noreply\r\n", base + "\u0000flush_all",
				base + "\r\n*1\r\n$8\r\nFLUSHALL\r\n",
				base + "\r\n*2\r\n$3\r\nDEL\r\n$" + canaryBytes + "\r\n" + canary + "\r\n");
		for (String key : keys) {
			String token = uniqueToken();
			assertThat(this.store.tryAcquire(key, token, LONG_TTL).isAcquired()).as("acquire %s", printable(key))
				.isTrue();
			assertThat(this.store.extend(key, token, LONG_TTL)).as("extend %s", printable(key)).isTrue();
			assertHeld(key);
			assertHeld(canary);
			assertThat(this.store.release(key, token)).as("release %s", printable(key)).isTrue();
			assertHeld(canary);
		}
		assertThat(this.store.release(canary, canaryOwner)).isTrue();
	}

	@Test
	void keysThatASanitizerWouldMergeAreDistinctLocks() {
		String base = uniqueKey("sanitized");
		List<String> keys = List.of(base + "a b", base + "a_b", base + "a+b", base + "a%20b", base + "a\tb",
				base + "a\nb", base + "a\r\nb", base + "ab", base + "a\u00a0b", base + "a\u0000b", base + "a\u007fb",
				base + "a?b", base + "aüb", base + "a\u00c3\u00bcb", base + "A B", base + " a b", base + "a b ");
		assertDistinctLocks(keys);
	}

	@Test
	void veryLongKeysAreDistinctLocks() {
		String base = uniqueKey("very-long");
		StringBuilder ascii = new StringBuilder(base);
		while (ascii.length() < 250) {
			ascii.append('x');
		}
		String megabyte = "y".repeat(1024 * 1024);
		List<String> keys = List.of(ascii.toString(), ascii + "x", ascii + "y", base + megabyte, base + megabyte + "a",
				base + megabyte + "b", base + "ü".repeat(512 * 1024), base + "ü".repeat(512 * 1024) + " ");
		assertDistinctLocks(keys);
	}

	@Test
	void keysThatLookLikeTheHashOfAnotherKeyAreDistinctLocks() {
		String spaced = uniqueKey("lookalike") + " with spaces, ünïcödé\r\n";
		String longKey = uniqueKey("lookalike") + "z".repeat(3000);
		List<String> keys = List.of(spaced, HASH_MARKER + sha256(spaced), longKey, HASH_MARKER + sha256(longKey),
				"lock:" + HASH_MARKER + sha256(spaced), HASH_MARKER + sha256(HASH_MARKER + sha256(spaced)));
		assertDistinctLocks(keys);
	}

	@Test
	void storeAnswersAgainAfterItsServerRestarts() {
		String key = uniqueKey("restart");
		String owner = uniqueToken();
		assertThat(this.store.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		restartServer();
		awaitStoreAnswers();
		String next = uniqueToken();
		AcquireReply after = this.store.tryAcquire(key, next, LONG_TTL);
		if (locksSurviveServerRestart()) {
			assertThat(after.isAcquired()).as("acquire of a lock held before the restart of a durable store").isFalse();
			assertThat(this.store.release(key, owner)).as("release by the owner from before the restart").isTrue();
		}
		else {
			assertThat(after.isAcquired()).as("acquire of a lock held before the restart, which the server lost")
				.isTrue();
			assertThat(this.store.release(key, owner)).as("release by the owner from before the restart").isFalse();
			assertThat(this.store.release(key, next)).isTrue();
		}
		String other = uniqueKey("after-restart");
		String otherOwner = uniqueToken();
		assertThat(this.store.tryAcquire(other, otherOwner, LONG_TTL).isAcquired()).isTrue();
		assertHeld(other);
		assertThat(this.store.extend(other, otherOwner, LONG_TTL)).isTrue();
		assertThat(this.store.release(other, otherOwner)).isTrue();
	}

	@Test
	void onlyOneOfManySimultaneousAcquirersWins() throws Exception {
		int contenders = 8;
		ExecutorService executor = Executors.newFixedThreadPool(contenders);
		try {
			for (int round = 0; round < 20; round++) {
				String key = uniqueKey("simultaneous");
				CountDownLatch go = new CountDownLatch(1);
				List<Future<Boolean>> attempts = new ArrayList<>();
				for (int i = 0; i < contenders; i++) {
					attempts.add(executor.submit(() -> {
						go.await();
						return this.store.tryAcquire(key, uniqueToken(), LONG_TTL).isAcquired();
					}));
				}
				go.countDown();
				int winners = 0;
				for (Future<Boolean> attempt : attempts) {
					winners += attempt.get(10, TimeUnit.SECONDS) ? 1 : 0;
				}
				assertThat(winners).as("owners of %s after %d simultaneous attempts", key, contenders).isOne();
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void concurrentOwnersNeverHoldTheSameKeyAtOnce() {
		List<String> keys = List.of(uniqueKey("exclusion-1"), uniqueKey("exclusion-2"), uniqueKey("exclusion-3"));
		ExclusionChecker.Result result = exclusionChecker().check(keys, (key) -> {
			String token = uniqueToken();
			return this.store.tryAcquire(key, token, LONG_TTL).isAcquired() ? () -> this.store.release(key, token)
					: null;
		});
		assertThat(result.failures()).as(result.toString()).isEmpty();
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.overlaps()).as(result.toString()).isZero();
		assertThat(result.acquisitions()).as("acquisitions in " + result)
			.isGreaterThanOrEqualTo(result.attempts() / 10);
		assertThat(result.rejections()).as("rejections (contention) in " + result).isPositive();
	}

	/**
	 * Owners that contend for one key, each writing to a fenced resource while it holds
	 * the lock: the resource accepts a write only with a token greater than every token
	 * it accepted before, as fencing requires, so each owner's token must be greater than
	 * its predecessors'. A store that draws a token before it takes the key can hand a
	 * lower token to an owner that follows a higher one. Skipped for a store that issues
	 * no fencing tokens.
	 */
	@Test
	void ownersOfOneKeyGetIncreasingFencingTokens() throws Exception {
		String key = uniqueKey("fenced");
		int owners = 3;
		int acquisitionsEach = 20;
		Object resource = new Object();
		long[] accepted = new long[1];
		List<String> rejected = new ArrayList<>();
		ExecutorService executor = Executors.newFixedThreadPool(owners);
		try {
			List<Future<Boolean>> runs = new ArrayList<>();
			for (int i = 0; i < owners; i++) {
				runs.add(executor.submit(() -> {
					long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
					int acquired = 0;
					while (acquired < acquisitionsEach && System.nanoTime() - deadline < 0) {
						String token = uniqueToken();
						AcquireReply result = (this.store instanceof FencingOnDemandLockStore onDemand)
								? onDemand.tryAcquireFenced(key, token, LONG_TTL)
								: this.store.tryAcquire(key, token, LONG_TTL);
						if (!result.isAcquired()) {
							Thread.onSpinWait();
							continue;
						}
						acquired++;
						long fence = result.fencingToken();
						synchronized (resource) {
							if (fence <= accepted[0]) {
								rejected.add(fence + " after " + accepted[0]);
							}
							accepted[0] = Math.max(accepted[0], fence);
						}
						assertThat(this.store.release(key, token)).as("release by the owner").isTrue();
						if (fence == AcquireReply.NO_FENCING_TOKEN) {
							return false;
						}
					}
					return true;
				}));
			}
			boolean fenced = true;
			for (Future<Boolean> run : runs) {
				fenced &= run.get(60, TimeUnit.SECONDS);
			}
			Assumptions.assumeTrue(fenced, "the store issues no fencing tokens");
			synchronized (resource) {
				assertThat(rejected).as("writes a fenced resource rejected from the lock's owner").isEmpty();
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void holderKeepsAResultThatOutlivesTheRelease() {
		ResultStoringLockStore results = resultStore();
		String key = uniqueKey("result");
		String token = uniqueToken();
		assertThat(results.getResult(key)).as("result before any holder kept one").isNull();
		assertThat(results.tryAcquire(key, token, LONG_TTL).isAcquired()).isTrue();
		assertThat(results.putResult(key, token, bytes("{\"sum\":3}"), LONG_TTL)).isTrue();
		assertThat(results.release(key, token)).isTrue();
		assertThat(results.getResult(key)).isEqualTo(bytes("{\"sum\":3}"));
	}

	@Test
	void anAcquisitionReadsTheResultKeptForItsKey() {
		ResultStoringLockStore results = resultStore();
		String key = uniqueKey("result-read");
		String first = uniqueToken();
		AcquireReplyWithResult none = results.tryAcquireReadingResult(key, first, LONG_TTL);
		assertThat(none.acquisition().isAcquired()).isTrue();
		assertThat(none.keptResult()).as("result before any holder kept one").isNull();
		assertThat(results.putResult(key, first, bytes("kept"), LONG_TTL)).isTrue();
		AcquireReplyWithResult held = results.tryAcquireReadingResult(key, uniqueToken(), LONG_TTL);
		assertThat(held.acquisition().isAcquired()).isFalse();
		assertThat(held.acquisition().holderRemainingTtl()).isPositive();
		assertThat(held.keptResult()).as("result read by a caller that found the lock held").isEqualTo(bytes("kept"));
		assertThat(results.release(key, first)).isTrue();
		String next = uniqueToken();
		AcquireReplyWithResult after = results.tryAcquireReadingResult(key, next, LONG_TTL);
		assertThat(after.acquisition().isAcquired()).isTrue();
		assertThat(after.keptResult()).isEqualTo(bytes("kept"));
		assertThat(results.release(key, next)).isTrue();
	}

	@Test
	void onlyTheHolderReleasesKeepingAResult() {
		ResultStoringLockStore results = resultStore();
		String key = uniqueKey("result-release");
		String owner = uniqueToken();
		assertThat(results.releaseKeepingResult(key, owner, bytes("free"), LONG_TTL)).as("a free key").isFalse();
		assertThat(results.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		assertThat(results.releaseKeepingResult(key, uniqueToken(), bytes("intruder"), LONG_TTL)).isFalse();
		assertThat(results.getResult(key)).isNull();
		assertThat(results.tryAcquire(key, uniqueToken(), LONG_TTL).isAcquired()).as("still held").isFalse();
		assertThat(results.releaseKeepingResult(key, owner, bytes("{\"sum\":3}"), LONG_TTL)).isTrue();
		assertThat(results.getResult(key)).isEqualTo(bytes("{\"sum\":3}"));
		String next = uniqueToken();
		assertThat(results.tryAcquire(key, next, LONG_TTL).isAcquired()).as("released").isTrue();
		assertThat(results.releaseKeepingResult(key, owner, bytes("late"), LONG_TTL)).as("after the release").isFalse();
		assertThat(results.getResult(key)).isEqualTo(bytes("{\"sum\":3}"));
		assertThat(results.release(key, next)).isTrue();
	}

	@Test
	void onlyTheHolderCanKeepAResult() {
		ResultStoringLockStore results = resultStore();
		String key = uniqueKey("result-owner");
		String owner = uniqueToken();
		assertThat(results.putResult(key, owner, bytes("unlocked"), LONG_TTL)).as("result of a free key").isFalse();
		assertThat(results.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		assertThat(results.putResult(key, uniqueToken(), bytes("intruder"), LONG_TTL)).isFalse();
		assertThat(results.getResult(key)).isNull();
		assertThat(results.release(key, owner)).isTrue();
		assertThat(results.putResult(key, owner, bytes("late"), LONG_TTL)).as("result after the release").isFalse();
		assertThat(results.getResult(key)).isNull();
	}

	@Test
	void staleHolderCannotReplaceTheNewHoldersResult() {
		ResultStoringLockStore results = resultStore();
		String key = uniqueKey("result-stale");
		String stale = uniqueToken();
		assertThat(results.tryAcquire(key, stale, SHORT_TTL).isAcquired()).isTrue();
		String current = uniqueToken();
		awaitAcquired(key, current, LONG_TTL);
		assertThat(results.putResult(key, current, bytes("current"), LONG_TTL)).isTrue();
		assertThat(results.putResult(key, stale, bytes("stale"), LONG_TTL)).isFalse();
		assertThat(results.getResult(key)).isEqualTo(bytes("current"));
		assertThat(results.release(key, current)).isTrue();
	}

	@Test
	void laterHolderReplacesTheResult() {
		ResultStoringLockStore results = resultStore();
		String key = uniqueKey("result-replaced");
		for (String value : List.of("first", "second")) {
			String token = uniqueToken();
			assertThat(results.tryAcquire(key, token, LONG_TTL).isAcquired()).isTrue();
			assertThat(results.putResult(key, token, bytes(value), LONG_TTL)).isTrue();
			assertThat(results.release(key, token)).isTrue();
		}
		assertThat(results.getResult(key)).isEqualTo(bytes("second"));
	}

	@Test
	void resultIsGoneOnceItsTimeToLivePasses() {
		ResultStoringLockStore results = resultStore();
		String key = uniqueKey("result-expiry");
		String token = uniqueToken();
		assertThat(results.tryAcquire(key, token, LONG_TTL).isAcquired()).isTrue();
		long start = System.nanoTime();
		assertThat(results.putResult(key, token, bytes("short-lived"), SHORT_TTL)).isTrue();
		assertThat(results.release(key, token)).isTrue();
		long deadline = start + EXPIRY_DEADLINE.toNanos();
		while (results.getResult(key) != null) {
			if (System.nanoTime() - deadline > 0) {
				fail("Result of %s was still kept %s after it was stored with a time-to-live of %s", printable(key),
						EXPIRY_DEADLINE, SHORT_TTL);
			}
			sleep(Duration.ofMillis(10));
		}
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until the result was gone")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE));
	}

	@Test
	void resultsAreBinarySafeAndBelongToTheirKey() {
		ResultStoringLockStore results = resultStore();
		byte[] everyByte = new byte[256 * 64];
		for (int i = 0; i < everyByte.length; i++) {
			everyByte[i] = (byte) i;
		}
		String key = uniqueKey("result-binary");
		String other = key + ":other";
		String token = uniqueToken();
		String otherToken = uniqueToken();
		assertThat(results.tryAcquire(key, token, LONG_TTL).isAcquired()).isTrue();
		assertThat(results.tryAcquire(other, otherToken, LONG_TTL).isAcquired()).isTrue();
		assertThat(results.putResult(key, token, everyByte, LONG_TTL)).isTrue();
		assertThat(results.putResult(other, otherToken, new byte[0], LONG_TTL)).isTrue();
		assertThat(results.getResult(key)).isEqualTo(everyByte);
		assertThat(results.getResult(other)).isEmpty();
		assertThat(results.release(key, token)).isTrue();
		assertThat(results.release(other, otherToken)).isTrue();
	}

	@Test
	void multiKeyStoreAcquiresEveryFreeKeyWithAFencingTokenEach() {
		MultiKeyLockStore multiKey = multiKeyStore();
		List<String> keys = sortedKeys("all", 3);
		String token = uniqueToken();
		MultiKeyAcquireReply result = multiKey.tryAcquireAll(keys, token, LONG_TTL);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.heldIndex()).isEqualTo(-1);
		assertThat(result.fencingTokens()).hasSize(3);
		keys.forEach(this::assertHeld);
		for (String key : keys) {
			assertThat(this.store.extend(key, token, LONG_TTL)).as("owned by the token: %s", key).isTrue();
		}
		assertThat(multiKey.tryAcquireAll(keys, uniqueToken(), LONG_TTL).isAcquired()).isFalse();
	}

	@Test
	void multiKeyStoreTakesNothingWhenAnyKeyIsHeld() {
		MultiKeyLockStore multiKey = multiKeyStore();
		List<String> keys = sortedKeys("none", 3);
		String holder = uniqueToken();
		assertThat(this.store.tryAcquire(keys.get(1), holder, Duration.ofSeconds(10)).isAcquired()).isTrue();
		String token = uniqueToken();
		MultiKeyAcquireReply result = multiKey.tryAcquireAll(keys, token, LONG_TTL);
		assertThat(result.isAcquired()).isFalse();
		assertThat(result.heldIndex()).isEqualTo(1);
		assertThat(result.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10));
		assertThat(result.fencingTokens()).isEmpty();
		for (String free : List.of(keys.get(0), keys.get(2))) {
			assertThat(this.store.extend(free, token, LONG_TTL)).as("%s was rolled back", free).isFalse();
			assertThat(this.store.tryAcquire(free, uniqueToken(), LONG_TTL).isAcquired()).as("%s is free", free)
				.isTrue();
		}
		assertThat(holderRemainingTtl(keys.get(1))).as("the holder's time-to-live is unchanged")
			.isLessThanOrEqualTo(Duration.ofSeconds(10));
		assertThat(this.store.release(keys.get(1), holder)).isTrue();
	}

	@Test
	void multiKeyStoreReleasesOnlyTheLocksOfTheToken() {
		MultiKeyLockStore multiKey = multiKeyStore();
		List<String> keys = sortedKeys("release", 2);
		String token = uniqueToken();
		assertThat(multiKey.tryAcquireAll(keys, token, LONG_TTL).isAcquired()).isTrue();
		String other = uniqueKey("release-other");
		String otherToken = uniqueToken();
		assertThat(this.store.tryAcquire(other, otherToken, LONG_TTL).isAcquired()).isTrue();
		assertThat(multiKey.releaseAll(List.of(keys.get(0), keys.get(1), other), uniqueToken())).containsExactly(false,
				false, false);
		keys.forEach(this::assertHeld);
		assertThat(multiKey.releaseAll(List.of(keys.get(0), other, keys.get(1)), token)).containsExactly(true, false,
				true);
		assertHeld(other);
		assertThat(multiKey.releaseAll(keys, token)).containsExactly(false, false);
		assertThat(multiKey.tryAcquireAll(keys, uniqueToken(), LONG_TTL).isAcquired()).isTrue();
	}

	@Test
	void multiKeyStoreLocksExpireWithTheirTimeToLive() {
		MultiKeyLockStore multiKey = multiKeyStore();
		List<String> keys = sortedKeys("expiry", 2);
		assertThat(multiKey.tryAcquireAll(keys, uniqueToken(), SHORT_TTL).isAcquired()).isTrue();
		for (String key : keys) {
			awaitAcquired(key, uniqueToken(), LONG_TTL);
		}
	}

	@Test
	void overlappingKeySetsInAnyOrderNeverHoldAKeyTwice() {
		MultiKeyLockStore multiKey = multiKeyStore();
		String a = uniqueKey("sets-a");
		String b = uniqueKey("sets-b");
		String c = uniqueKey("sets-c");
		List<List<String>> sets = List.of(List.of(a, b), List.of(b, a), List.of(a, c), List.of(c, b), List.of(b));
		ExclusionChecker.Result result = exclusionChecker().checkSets(sets,
				(set) -> acquireAll(multiKey, set, uniqueToken()));
		assertNoKeyHeldTwice(result, List.of(a, b, c));
	}

	@Test
	void singleKeyAndMultiKeyAcquisitionsNeverHoldAKeyTwice() {
		MultiKeyLockStore multiKey = multiKeyStore();
		String a = uniqueKey("mixed-a");
		String b = uniqueKey("mixed-b");
		String c = uniqueKey("mixed-c");
		// A set of one key is taken by the single-key acquisition, the others all at once
		List<List<String>> sets = List.of(List.of(a, b), List.of(a), List.of(b, c), List.of(b), List.of(a, c),
				List.of(c));
		ExclusionChecker.Result result = exclusionChecker().checkSets(sets, (set) -> {
			String token = uniqueToken();
			if (set.size() == 1) {
				String key = set.get(0);
				return this.store.tryAcquire(key, token, LONG_TTL).isAcquired() ? () -> this.store.release(key, token)
						: null;
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
		assertThat(result.failures()).as(result.toString()).isEmpty();
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.overlaps()).as(result.toString()).isZero();
		assertThat(result.acquisitions()).as("acquisitions in " + result)
			.isGreaterThanOrEqualTo(result.attempts() / 20);
		for (String key : keys) {
			assertThat(this.store.tryAcquire(key, uniqueToken(), LONG_TTL).isAcquired())
				.as("%s is free after the check", key)
				.isTrue();
		}
	}

	private MultiKeyLockStore multiKeyStore() {
		Assumptions.assumeTrue(this.store instanceof MultiKeyLockStore, () -> this.store.getClass().getSimpleName()
				+ " has no multi-key acquisition; " + "LockOperationsContractTests covers its generic path");
		return (MultiKeyLockStore) this.store;
	}

	private List<String> sortedKeys(String name, int count) {
		List<String> keys = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			keys.add(uniqueKey(name + "-" + i));
		}
		keys.sort(null);
		return keys;
	}

	private ResultStoringLockStore resultStore() {
		Assumptions.assumeTrue(this.store instanceof ResultStoringLockStore,
				() -> this.store.getClass().getSimpleName() + " keeps no results");
		return (ResultStoringLockStore) this.store;
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private void assertDistinctLocks(List<String> keys) {
		List<String> tokens = new ArrayList<>();
		for (String key : keys) {
			String token = uniqueToken();
			assertThat(this.store.tryAcquire(key, token, LONG_TTL).isAcquired())
				.as("acquire %s, distinct from the keys acquired before it", printable(key))
				.isTrue();
			tokens.add(token);
		}
		for (String key : keys) {
			assertHeld(key);
		}
		for (int i = 0; i < keys.size(); i++) {
			assertThat(this.store.release(keys.get(i), tokens.get(i))).as("release %s", printable(keys.get(i)))
				.isTrue();
		}
	}

	private void awaitStoreAnswers() {
		long deadline = System.nanoTime() + RECOVERY_DEADLINE.toNanos();
		while (true) {
			try {
				// A fresh key each time: an attempt that failed may still have been
				// applied
				this.store.tryAcquire(uniqueKey("probe"), uniqueToken(), SHORT_TTL);
				return;
			}
			catch (LockStoreException ex) {
				if (System.nanoTime() - deadline > 0) {
					throw new AssertionError(
							"Store did not answer within " + RECOVERY_DEADLINE + " after its server restarted", ex);
				}
				sleep(Duration.ofMillis(20));
			}
		}
	}

	private static String sha256(String key) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
			return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

	private void assertHeld(String key) {
		AcquireReply result = this.store.tryAcquire(key, uniqueToken(), LONG_TTL);
		assertThat(result.isAcquired()).as("another owner acquired %s, which should be held", printable(key)).isFalse();
		assertThat(result.holderRemainingTtl()).as("holder's remaining time-to-live of %s", printable(key))
			.isPositive();
	}

	private Duration holderRemainingTtl(String key) {
		AcquireReply result = this.store.tryAcquire(key, uniqueToken(), LONG_TTL);
		assertThat(result.isAcquired()).as("another owner acquired %s, which should be held", printable(key)).isFalse();
		return result.holderRemainingTtl();
	}

	private void awaitAcquired(String key, String token, Duration ttl) {
		long deadline = System.nanoTime() + EXPIRY_DEADLINE.toNanos();
		while (!this.store.tryAcquire(key, token, ttl).isAcquired()) {
			if (System.nanoTime() - deadline > 0) {
				fail("Lock %s was not free again within %s", printable(key), EXPIRY_DEADLINE);
			}
			sleep(Duration.ofMillis(5));
		}
	}

	private static void sleepUntil(long nanoTime) {
		long remaining = nanoTime - System.nanoTime();
		if (remaining > 0) {
			sleep(Duration.ofNanos(remaining));
		}
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis(), (int) (duration.toNanos() % 1_000_000));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	private static String printable(String key) {
		String shown = (key.length() > 300) ? key.substring(0, 300) + "... (" + key.length() + " chars)" : key;
		return "'" + shown.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t").replace("\u0000", "\\0")
				+ "'";
	}

}
