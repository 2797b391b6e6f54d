package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.List;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;

/**
 * A {@link MultiKeyLockStore} whose single-key operations are correct (the in-memory
 * store's) but whose multi-key acquisition has one deliberate flaw, for negative controls
 * of the multi-key contract tests.
 */
final class FlawedMultiKeyLockStore implements MultiKeyLockStore {

	private final InMemoryLockStore delegate = new InMemoryLockStore();

	private final Flaw flaw;

	FlawedMultiKeyLockStore(Flaw flaw) {
		this.flaw = flaw;
	}

	@Override
	public MultiKeyAcquireReply tryAcquireAll(List<String> keys, String token, Duration ttl) {
		long[] fencingTokens = new long[keys.size()];
		for (int i = 0; i < keys.size(); i++) {
			AcquireReply result = this.delegate.tryAcquire(keys.get(i), token, ttl);
			if (!result.isAcquired() && (i == 0 || this.flaw == Flaw.NO_ROLLBACK)) {
				// NO_ROLLBACK keeps the keys it took before the held one
				return MultiKeyAcquireReply.held(i, result.holderRemainingTtl());
			}
			// CHECKS_FIRST_KEY_ONLY counts a held key after the first as acquired
			fencingTokens[i] = result.fencingToken();
		}
		return MultiKeyAcquireReply.acquired(fencingTokens);
	}

	@Override
	public boolean[] releaseAll(List<String> keys, String token) {
		boolean[] released = new boolean[keys.size()];
		for (int i = 0; i < keys.size(); i++) {
			released[i] = this.delegate.release(keys.get(i), token);
		}
		return released;
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		return this.delegate.tryAcquire(key, token, ttl);
	}

	@Override
	public boolean release(String key, String token) {
		return this.delegate.release(key, token);
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		return this.delegate.extend(key, token, ttl);
	}

	@Override
	public Duration timeToExpiry(String key) {
		return this.delegate.timeToExpiry(key);
	}

	enum Flaw {

		/** Takes keys one by one and keeps those taken when a later one is held. */
		NO_ROLLBACK,

		/** Reports the set acquired when any key after the first is held by another. */
		CHECKS_FIRST_KEY_ONLY

	}

}
