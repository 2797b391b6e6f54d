package dev.lockstarter.test.contract;

import java.time.Duration;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.SharedLockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;

/**
 * A {@link SharedLockStore} that is the in-memory store but for one deliberate flaw in
 * its shared locks, for negative controls of the shared lock contract tests and checkers.
 * Its mutexes are correct.
 */
final class FlawedSharedLockStore implements SharedLockStore, ReleaseNotifyingLockStore {

	private final InMemoryLockStore delegate = new InMemoryLockStore();

	private final Flaw flaw;

	FlawedSharedLockStore(Flaw flaw) {
		this.flaw = flaw;
	}

	@Override
	public AcquireReply tryAcquirePermit(String key, String token, Duration ttl, int permits) {
		return this.delegate.tryAcquirePermit(key, token, ttl,
				(this.flaw == Flaw.EXTRA_PERMIT) ? permits + 1 : permits);
	}

	@Override
	public AcquireReply tryAcquireRead(String key, String token, Duration ttl) {
		if (this.flaw == Flaw.READER_BESIDE_WRITER) {
			// A reader counted as one of unlimited permits: it sees no writer, held or
			// waiting, though a writer still sees it
			return this.delegate.tryAcquirePermit(key, token, ttl, Integer.MAX_VALUE);
		}
		return this.delegate.tryAcquireRead(key, token, ttl);
	}

	@Override
	public AcquireReply tryAcquireWrite(String key, String token, Duration ttl, Duration waitFor) {
		if (this.flaw == Flaw.WAIT_OUTLIVES_WRITER && waitFor.compareTo(ttl) > 0) {
			// The wait recorded for its whole length, as if the writer lived that long
			return this.delegate.tryAcquireWrite(key, token, waitFor, waitFor);
		}
		return this.delegate.tryAcquireWrite(key, token, ttl,
				(this.flaw == Flaw.IGNORES_WAITING_WRITER) ? Duration.ZERO : waitFor);
	}

	@Override
	public boolean releaseShared(String key, String token) {
		return this.delegate.releaseShared(key, token);
	}

	@Override
	public boolean extendShared(String key, String token, Duration ttl) {
		return this.delegate.extendShared(key, token, ttl);
	}

	@Override
	public Duration sharedTimeToExpiry(String key) {
		return this.delegate.sharedTimeToExpiry(key);
	}

	@Override
	public Subscription subscribe(String key, Runnable listener) {
		return this.delegate.subscribe(key, listener);
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

		/** Grants one permit more than asked for. */
		EXTRA_PERMIT,

		/** Grants a read whatever writer holds the key or waits for it. */
		READER_BESIDE_WRITER,

		/** Forgets a refused writer's wait, so new readers keep coming. */
		IGNORES_WAITING_WRITER,

		/**
		 * Keeps a refused writer's wait for as long as it said it would wait, past its
		 * time-to-live, so a writer that crashed while waiting holds readers back.
		 */
		WAIT_OUTLIVES_WRITER

	}

}
