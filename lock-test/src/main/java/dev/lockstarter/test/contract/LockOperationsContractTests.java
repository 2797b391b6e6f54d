package dev.lockstarter.test.contract;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyLockStore;

/**
 * The behaviour of {@link LockTemplate} on a store: waiting for a lock, renewal while
 * held, the reporting of a lost lock, minimum hold times, fixed retries and fencing
 * tokens. Every store should pass it, next to {@link LockStoreContractTests}.
 * <p>
 * Locks on several keys at once are checked the same way: one lease holds every key and
 * one release frees them all, a held key blocks the whole set and leaves nothing else
 * held, a waiter takes the set once every key is free, overlapping sets named in either
 * order exclude each other without deadlock, renewal keeps every key and the loss of one
 * is reported. These run on the store as it is and, for a store with the
 * {@link MultiKeyLockStore} ability, once more through the template's generic path
 * (ordered acquisition with rollback), which every other store takes.
 * <p>
 * Permits and read/write locks, for a store that keeps them, are taken through several
 * templates on the store at once, as several application instances take them: a
 * {@link PermitsChecker} and a {@link ReadersWriterChecker} count who is inside, and a
 * waiting writer must get in among a stream of overlapping readers.
 * <p>
 * The tests are grouped by topic in package-private interfaces that this class
 * implements: waiting, renewal and hold times, fencing, multi-key leases and shared
 * leases.
 * <p>
 * Subclasses return the store from {@link #createStore()}, and declare with
 * {@link #issuesFencingTokens()} whether it issues fencing tokens. Tests use
 * time-to-lives of a few hundred milliseconds and take a few seconds in all.
 *
 * @since 0.1.0
 */
public abstract class LockOperationsContractTests implements WaitingContract, LeaseRenewalContract,
		LeaseFencingContract, MultiKeyLeaseContract, SharedLeaseContract {

	private @Nullable TemplateUnderTest templateUnderTest;

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
	 * Return the template under test, on the store.
	 * @return the template
	 */
	protected final LockTemplate locks() {
		return templateUnderTest().locks();
	}

	/**
	 * Return the store under test.
	 * @return the store
	 */
	protected final LockStore store() {
		return templateUnderTest().store();
	}

	/**
	 * Return a new key, unique to the test run.
	 * @param name a readable part
	 * @return the key
	 */
	protected final String uniqueKey(String name) {
		return templateUnderTest().uniqueKey(name);
	}

	/**
	 * Return the store key of a template key.
	 * @param key the key given to the template
	 * @return the key the store sees
	 */
	protected final String storeKey(String key) {
		return templateUnderTest().storeKey(key);
	}

	/**
	 * Return the templates under test with the helpers the contract's tests share; an
	 * implementation detail of the suite, not meant for subclasses.
	 * @return the templates under test
	 */
	@Override
	public final TemplateUnderTest templateUnderTest() {
		TemplateUnderTest templateUnderTest = this.templateUnderTest;
		if (templateUnderTest == null) {
			throw new IllegalStateException("No template under test outside of a test");
		}
		return templateUnderTest;
	}

	@BeforeEach
	void setUpTemplate() {
		LockStore store = createStore();
		this.templateUnderTest = new TemplateUnderTest(store, DeclaredFencing.of(issuesFencingTokens(), store));
	}

	@AfterEach
	void tearDownTemplate() {
		TemplateUnderTest templateUnderTest = templateUnderTest();
		templateUnderTest.destroy();
		destroyStore(templateUnderTest.store());
	}

}
