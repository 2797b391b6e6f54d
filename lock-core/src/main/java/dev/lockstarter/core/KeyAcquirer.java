package dev.lockstarter.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.AcquireReplyWithResult;
import dev.lockstarter.store.FencingOnDemandLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import dev.lockstarter.store.SharedLockStore;

/**
 * How an {@link AcquisitionAttempt} asks the store for one key: the plain acquisition,
 * one that draws the fencing token at once, or one that reads the result kept for the key
 * too. A new kind of lock (permits, read and write) is a new acquirer, with the store
 * capability it needs.
 */
interface KeyAcquirer {

	/**
	 * Send one acquisition.
	 * @param storeKey the store key
	 * @param token the owner token
	 * @param ttl the time-to-live
	 * @return the store's reply
	 * @throws dev.lockstarter.store.LockStoreException if the store call fails
	 */
	AcquireReply tryAcquire(String storeKey, String token, Duration ttl);

	/**
	 * Whether a release listener may send this acquisition for a waiter, through
	 * {@link dev.lockstarter.store.ReleaseHandoffLockStore#tryAcquireOnRelease}: only a
	 * plain one.
	 */
	boolean handsOff();

	/**
	 * The plain acquisition of {@link LockStore#tryAcquire}.
	 * @param store the store
	 * @return the acquirer
	 */
	static KeyAcquirer plain(LockStore store) {
		return new KeyAcquirer() {

			@Override
			public AcquireReply tryAcquire(String storeKey, String token, Duration ttl) {
				return store.tryAcquire(storeKey, token, ttl);
			}

			@Override
			public boolean handsOff() {
				return true;
			}

		};
	}

	/**
	 * An acquisition that comes with its fencing token, for a lease handed out of the
	 * JVM: {@link FencingOnDemandLockStore#tryAcquireFenced} where the store draws tokens
	 * on demand, the plain acquisition elsewhere.
	 * @param store the store's capabilities
	 * @return the acquirer
	 */
	static KeyAcquirer fenced(StoreCapabilities store) {
		FencingOnDemandLockStore onDemand = store.fencingOnDemand();
		LockStore plain = store.store();
		return new KeyAcquirer() {

			@Override
			public AcquireReply tryAcquire(String storeKey, String token, Duration ttl) {
				return (onDemand != null) ? onDemand.tryAcquireFenced(storeKey, token, ttl)
						: plain.tryAcquire(storeKey, token, ttl);
			}

			@Override
			public boolean handsOff() {
				return false;
			}

		};
	}

	/**
	 * An acquisition of a shared lock's place, of the kind the options say. A writer
	 * tells the store to hold new readers back for as long as it will still wait, but no
	 * longer than its time-to-live, so that a writer that dies while waiting holds them
	 * back no longer than a holder would; each of its tries records the wait anew.
	 * @param store the store
	 * @param options the options, whose kind is not the mutex
	 * @return the acquirer, for one attempt
	 */
	static KeyAcquirer shared(SharedLockStore store, LockOptions options) {
		LockKind kind = options.getKind();
		long waitsUntil = System.nanoTime() + WaitSchedule.longestWait(options).toNanos();
		return new KeyAcquirer() {

			@Override
			public AcquireReply tryAcquire(String storeKey, String token, Duration ttl) {
				return switch (kind.type()) {
					case PERMITS -> store.tryAcquirePermit(storeKey, token, ttl, kind.getPermits());
					case READ -> store.tryAcquireRead(storeKey, token, ttl);
					case WRITE -> store.tryAcquireWrite(storeKey, token, ttl,
							Duration.ofNanos(Math.min(ttl.toNanos(), Math.max(0, waitsUntil - System.nanoTime()))));
					case MUTEX -> throw new IllegalArgumentException("A mutex is not a shared lock");
				};
			}

			@Override
			public boolean handsOff() {
				return false;
			}

		};
	}

	/**
	 * An acquisition that reads the result kept for the key in the same store call, and
	 * keeps the result of its last try.
	 */
	final class ResultReading implements KeyAcquirer {

		private final ResultStoringLockStore store;

		private volatile byte @Nullable [] keptResult;

		ResultReading(ResultStoringLockStore store) {
			this.store = store;
		}

		@Override
		public AcquireReply tryAcquire(String storeKey, String token, Duration ttl) {
			AcquireReplyWithResult reply = this.store.tryAcquireReadingResult(storeKey, token, ttl);
			this.keptResult = reply.keptResult();
			return reply.acquisition();
		}

		@Override
		public boolean handsOff() {
			return false;
		}

		/** The result kept for the key at the last try, or {@code null}. */
		byte @Nullable [] keptResult() {
			return this.keptResult;
		}

	}

}
