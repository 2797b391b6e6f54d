package dev.lockstarter.test.contract;

import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import dev.lockstarter.store.SharedLockStore;

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
 * A store that keeps permits and read/write locks ({@link SharedLockStore}) is checked
 * for every guarantee its Javadoc states: permits up to their number, readers beside
 * readers only, a waiting writer that holds back new readers until its wait ends,
 * owner-only release and extension, expiry, fencing and the time to expiry of a shared
 * key. Other stores skip those tests.
 * <p>
 * A store that issues fencing tokens declares it with {@link #issuesFencingTokens()}: its
 * tokens must then increase from one owner of a key to the next, and a store that
 * declares none must answer none.
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
 *     &#64;Override
 *     protected boolean issuesFencingTokens() {
 *         return true;
 *     }
 *
 * }
 * </pre>
 *
 * The tests are grouped by topic in package-private interfaces that this class
 * implements: acquisition and release, expiry, time to expiry, keys, contention and
 * fencing, server restart, kept results, multi-key acquisition, shared locks, and the
 * listing and force-release of held locks.
 * <p>
 * The suite takes a few seconds: expiry is tested with time-to-lives of a few hundred
 * milliseconds, so a store must expire locks with a precision of tens of milliseconds.
 *
 * @since 0.1.0
 */
public abstract class LockStoreContractTests
		implements AcquisitionContract, ExpiryContract, TimeToExpiryContract, KeyContract, ContentionContract,
		ServerRestartContract, ResultContract, MultiKeyStoreContract, SharedLockStoreContract, InspectionContract {

	private @Nullable StoreUnderTest storeUnderTest;

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
	 * Return whether the store issues fencing tokens: with every acquisition a positive
	 * token, greater than every earlier one of the key (drawn on demand for a
	 * {@link dev.lockstarter.store.FencingOnDemandLockStore}). The fencing tests check
	 * the store's tokens against this declaration, and none of them is skipped: a store
	 * that declares tokens fails them when an acquisition answers
	 * {@link dev.lockstarter.store.AcquireReply#NO_FENCING_TOKEN}, and a store that
	 * declares none, as by default, fails them when it answers any other token.
	 * @return {@code true} if the store issues fencing tokens
	 */
	protected boolean issuesFencingTokens() {
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
		return storeUnderTest().store();
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

	/**
	 * Return the store under test with the helpers the contract's tests share; an
	 * implementation detail of the suite, not meant for subclasses.
	 * @return the store under test
	 */
	@Override
	public final StoreUnderTest storeUnderTest() {
		StoreUnderTest storeUnderTest = this.storeUnderTest;
		if (storeUnderTest == null) {
			throw new IllegalStateException("No store under test outside of a test");
		}
		return storeUnderTest;
	}

	@BeforeEach
	void setUpStore() {
		this.storeUnderTest = new StoreUnderTest(this, createStore());
	}

	@AfterEach
	void tearDownStore() {
		if (this.storeUnderTest != null) {
			destroyStore(this.storeUnderTest.store());
		}
	}

}
