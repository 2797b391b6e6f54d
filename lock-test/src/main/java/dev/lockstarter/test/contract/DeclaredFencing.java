package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.List;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.FencingOnDemandLockStore;
import dev.lockstarter.store.LockStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whether the store under test issues fencing tokens, as its contract test class declares
 * it, and the check of the tokens a test got against that declaration. A store that
 * declares fencing fails a test that gets {@link AcquireReply#NO_FENCING_TOKEN} for an
 * acquisition; a store that declares none fails a test that gets any other token. No
 * fencing test is skipped: a store whose tokens regress to 0 fails, and so does a store
 * that issues tokens without declaring them.
 */
final class DeclaredFencing {

	private final boolean issuesTokens;

	private final String storeName;

	private DeclaredFencing(boolean issuesTokens, String storeName) {
		this.issuesTokens = issuesTokens;
		this.storeName = storeName;
	}

	/**
	 * The fencing a contract test class declares for its store.
	 * @param issuesTokens what the class's {@code issuesFencingTokens()} answers
	 * @param store the store under test, named in failure messages
	 */
	static DeclaredFencing of(boolean issuesTokens, LockStore store) {
		return new DeclaredFencing(issuesTokens, store.getClass().getSimpleName());
	}

	/** Whether the store declares fencing tokens. */
	boolean issuesTokens() {
		return this.issuesTokens;
	}

	/**
	 * The fencing of the answers of the store's own acquisitions ({@code tryAcquire},
	 * {@code tryAcquireAll}): none for a store that draws its tokens on demand
	 * ({@link FencingOnDemandLockStore}), whose plain acquisitions answer
	 * {@link AcquireReply#NO_FENCING_TOKEN} by contract.
	 */
	DeclaredFencing ofPlainAcquisitions(LockStore store) {
		return (store instanceof FencingOnDemandLockStore) ? new DeclaredFencing(false, this.storeName) : this;
	}

	/**
	 * Check the fencing tokens of acquisitions against the declaration: each positive if
	 * the store declares fencing, each {@link AcquireReply#NO_FENCING_TOKEN} if not.
	 * @param description what the tokens are, for the failure message
	 * @param tokens the tokens
	 * @return whether the store issues tokens, so that the test goes on to check their
	 * order; {@code false} once the tokens are checked to be none, which is all there is
	 * to check then
	 */
	boolean check(String description, List<Long> tokens) {
		if (this.issuesTokens) {
			assertThat(tokens)
				.as("%s, from %s, which declares fencing tokens (issuesFencingTokens() is true): "
						+ "an acquisition answered no token", description, this.storeName)
				.allSatisfy((token) -> assertThat(token).isPositive());
			return true;
		}
		assertThat(tokens)
			.as("%s, from %s, which declares no fencing tokens: a store that issues them "
					+ "declares it by returning true from issuesFencingTokens()", description, this.storeName)
			.allSatisfy((token) -> assertThat(token).isEqualTo(AcquireReply.NO_FENCING_TOKEN));
		return false;
	}

	/**
	 * Acquire with the fencing token drawn in the same operation: through
	 * {@link FencingOnDemandLockStore#tryAcquireFenced} for a store that draws its tokens
	 * on demand, through {@link LockStore#tryAcquire} for any other.
	 */
	static AcquireReply tryAcquireFenced(LockStore store, String key, String token, Duration ttl) {
		return (store instanceof FencingOnDemandLockStore onDemand) ? onDemand.tryAcquireFenced(key, token, ttl)
				: store.tryAcquire(key, token, ttl);
	}

}
