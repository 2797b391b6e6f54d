package dev.lockstarter.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.FinishedAttempt.Outcome;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ReleaseHandoffLockStore;

/**
 * One acquisition: one owner token for all of its tries, on one key or several (in
 * store-key order, all taken or none). A try on several keys is one
 * {@link MultiKeyLockStore#tryAcquireAll} call where the store has it; elsewhere the keys
 * are tried one by one, and those taken before a key found held are rolled back by token.
 * A store call that fails may have granted what it asked for: the keys it may hold are
 * released by token, in the background. How one key is asked for is the
 * {@link KeyAcquirer}'s; what a grant becomes, the {@link LeaseKind}'s. Waiting is the
 * waiter's ({@link BlockingWaiter}, {@link ReactiveWaiter}); this type keeps the state
 * both report from.
 */
final class AcquisitionAttempt {

	/** The reply before the first try. */
	private static final AcquireReply NOT_TRIED = AcquireReply.held(Duration.ZERO);

	private static final long[] NO_FENCING_TOKENS = new long[0];

	private final LeaseServices services;

	private final StoreCapabilities store;

	private final List<String> keys;

	private final List<String> storeKeys;

	private final String token = OwnerTokens.next();

	private final LockOptions options;

	private final KeyAcquirer acquirer;

	private final LeaseKind leaseKind;

	private AcquireReply reply = NOT_TRIED;

	/** The fencing tokens of several keys, once all are acquired. */
	private long[] fencingTokens = NO_FENCING_TOKENS;

	/** The index of the key found held by the last try. */
	private int heldIndex;

	/** When the last try was sent, from {@link System#nanoTime()}. */
	private volatile long sentAt;

	private int tries;

	private volatile boolean waited;

	private volatile boolean stopped;

	AcquisitionAttempt(LeaseServices services, StoreCapabilities store, List<String> keys, List<String> storeKeys,
			LockOptions options, KeyAcquirer acquirer, LeaseKind leaseKind) {
		this.services = services;
		this.store = store;
		this.keys = keys;
		this.storeKeys = storeKeys;
		this.options = options;
		this.acquirer = acquirer;
		this.leaseKind = leaseKind;
	}

	/**
	 * The store this attempt's locks are kept in: the mutex store, or its shared view.
	 */
	StoreCapabilities store() {
		return this.store;
	}

	List<String> keys() {
		return this.keys;
	}

	List<String> storeKeys() {
		return this.storeKeys;
	}

	String token() {
		return this.token;
	}

	LockOptions options() {
		return this.options;
	}

	/** The lock's name, as meters and listeners report it. */
	String name() {
		return LockEvents.nameOf(this.options);
	}

	/** The key, or the list of keys, as listeners and exceptions name it. */
	String description() {
		return (this.keys.size() == 1) ? this.keys.get(0) : this.keys.toString();
	}

	/**
	 * Whether each try is the store's plain acquisition ({@link KeyAcquirer#plain}), the
	 * only one that hands off.
	 */
	boolean triesPlainly() {
		return this.acquirer.handsOff();
	}

	/**
	 * The release listener that acquires for this attempt's waiter from the store thread
	 * that read the announcement, when the store can and the attempt is a plain one on
	 * one key for a held lease.
	 * @param wake wakes the waiter once the listener's try is answered
	 * @return the handoff, or {@code null} if the waiter tries for itself
	 */
	@Nullable ReleaseHandoff handoff(Runnable wake) {
		ReleaseHandoffLockStore handoffs = this.store.releaseHandoff();
		if (handoffs == null || this.keys.size() != 1 || !this.acquirer.handsOff()
				|| this.leaseKind != LeaseKind.HELD) {
			return null;
		}
		String key = this.keys.get(0);
		String storeKey = this.storeKeys.get(0);
		Duration ttl = this.options.getTtl();
		return new ReleaseHandoff(handoffs, storeKey, this.token, ttl, wake, (sentAt) -> this.services.cleaner()
			.cleanUp(this.store.store(), key, storeKey, this.token, sentAt, ttl));
	}

	private long fencingToken(int index) {
		return (this.keys.size() == 1) ? this.reply.fencingToken() : this.fencingTokens[index];
	}

	/** The holder's remaining time-to-live, as the last try found it. */
	Duration holderRemainingTtl() {
		return this.reply.holderRemainingTtl();
	}

	/**
	 * Note when the first try is sent: the caller read the clock already.
	 * @param startedAt the time, from {@link System#nanoTime()}
	 */
	void firstSentAt(long startedAt) {
		this.sentAt = startedAt;
	}

	/**
	 * Try every key once, on the calling thread.
	 * @return whether every key was acquired
	 * @throws LockStoreException if a store call failed
	 * @throws LockWaitInterruptedException if a store call was interrupted
	 */
	boolean tryOnce() {
		if (this.tries++ > 0) {
			this.sentAt = System.nanoTime();
		}
		if (this.keys.size() == 1) {
			return tryKey(0);
		}
		MultiKeyLockStore multiKey = this.store.multiKey();
		return (multiKey != null) ? tryAll(multiKey) : tryEach();
	}

	private boolean tryAll(MultiKeyLockStore multiKey) {
		MultiKeyAcquireReply all;
		try {
			all = multiKey.tryAcquireAll(this.storeKeys, this.token, this.options.getTtl());
		}
		catch (LockStoreException ex) {
			throw failed(ex, this.keys.size());
		}
		if (all.isAcquired()) {
			this.fencingTokens = all.fencingTokens();
			this.reply = AcquireReply.acquired();
			return true;
		}
		this.heldIndex = all.heldIndex();
		this.reply = AcquireReply.held(all.holderRemainingTtl());
		return false;
	}

	private boolean tryEach() {
		long[] fencingTokens = new long[this.keys.size()];
		for (int i = 0; i < this.keys.size(); i++) {
			if (!tryKey(i)) {
				rollBack(i);
				return false;
			}
			fencingTokens[i] = this.reply.fencingToken();
		}
		this.fencingTokens = fencingTokens;
		return true;
	}

	/**
	 * Try the key at {@code index}; a store failure may have granted it, as may the keys
	 * before it.
	 */
	private boolean tryKey(int index) {
		try {
			this.reply = this.acquirer.tryAcquire(this.storeKeys.get(index), this.token, this.options.getTtl());
		}
		catch (LockStoreException ex) {
			throw failed(ex, index + 1);
		}
		this.heldIndex = index;
		return this.reply.isAcquired();
	}

	/**
	 * Release the keys before {@code count}, taken by this attempt before it found the
	 * next one held; a release that fails is retried in the background.
	 */
	private void rollBack(int count) {
		for (int i = count - 1; i >= 0; i--) {
			try {
				this.store.store().release(this.storeKeys.get(i), this.token);
			}
			catch (RuntimeException ex) {
				orphaned(i);
			}
		}
	}

	/**
	 * Count a try whose reply came another way: from a release listener, or a
	 * non-blocking store call. Only for an attempt on one key.
	 * @param reply the store's reply
	 * @param sentAt when the try was sent, from {@link System#nanoTime()}
	 * @return whether it acquired the key
	 */
	boolean answered(AcquireReply reply, long sentAt) {
		this.tries++;
		this.sentAt = sentAt;
		this.heldIndex = 0;
		this.reply = reply;
		return reply.isAcquired();
	}

	/**
	 * Take the answer of a try that a release listener sent for this attempt's waiter: a
	 * reply counts as a try of this attempt; a failure, which may have been a grant, is
	 * cleaned up by token in the background and thrown.
	 * @param answer the listener's answer
	 * @return whether it acquired the key
	 * @throws LockStoreException if the listener's try failed
	 */
	boolean take(ReleaseHandoff.Answer answer) {
		AcquireReply answered = answer.result();
		if (answered == null) {
			this.sentAt = answer.sentAt();
			orphaned(0);
			throw answer.storeFailure(this.keys.get(0));
		}
		return answered(answered, answer.sentAt());
	}

	/**
	 * Note that a try is being sent another way than {@link #tryOnce()}.
	 * @return when, from {@link System#nanoTime()}
	 */
	long sending() {
		long now = System.nanoTime();
		this.sentAt = now;
		return now;
	}

	/**
	 * A store call of the calling thread failed: the first {@code count} keys may be held
	 * by this attempt. Release them by token, in the background, or at once after an
	 * interrupt.
	 * @param failure the failure
	 * @param count the number of keys that the failed call may have taken
	 * @return the exception to throw
	 */
	RuntimeException failed(LockStoreException failure, int count) {
		if (Thread.interrupted() || StoreCallInterruption.isInterruption(failure)) {
			return releaseAfterInterrupt(failure, count);
		}
		for (int i = 0; i < count; i++) {
			orphaned(i);
		}
		return failure;
	}

	/**
	 * Release the first {@code count} keys by this attempt's token at once, as the caller
	 * was interrupted and will not wait for a clean-up; a release that fails is retried
	 * in the background. The interrupt is set again.
	 * @return the exception that tells the caller of the interrupt
	 */
	private LockWaitInterruptedException releaseAfterInterrupt(LockStoreException failure, int count) {
		try {
			for (int i = 0; i < count; i++) {
				try {
					this.store.store().release(this.storeKeys.get(i), this.token);
				}
				catch (RuntimeException ex) {
					failure.addSuppressed(ex);
					orphaned(i);
				}
			}
		}
		finally {
			Thread.currentThread().interrupt();
		}
		return StoreCallInterruption.interrupted(description(), failure);
	}

	/**
	 * Release by token, in the background, the lock that this attempt may hold on the key
	 * at {@code index}.
	 * @param index the key's index
	 */
	void orphaned(int index) {
		this.services.cleaner()
			.cleanUp(this.store.store(), this.keys.get(index), this.storeKeys.get(index), this.token, this.sentAt,
					this.options.getTtl());
	}

	/**
	 * The attempt as its caller gets it: the lease when every key was acquired, else the
	 * key found held, the holder's remaining time and the retry-after estimate.
	 * @throws LockTtlTooShortException if every key was acquired, but the store confirmed
	 * it only after the lease's local deadline (see {@link #confirmedTooLate()})
	 */
	LockAttempt outcome() {
		if (this.reply.isAcquired()) {
			if (pastLocalDeadline()) {
				throw confirmedTooLate();
			}
			List<Long> fencingTokens = new ArrayList<>(this.keys.size());
			for (int i = 0; i < this.keys.size(); i++) {
				fencingTokens.add(fencingToken(i));
			}
			Grant grant = new Grant(this.store, this.keys, this.storeKeys, this.token, fencingTokens, this.options,
					this.sentAt);
			return LockAttempt.acquired(this.leaseKind.lease(grant, this.services));
		}
		Duration remaining = this.reply.holderRemainingTtl();
		return LockAttempt.held(this.keys.get(this.heldIndex), remaining,
				this.services.events().holdTimes().retryAfter(name(), remaining));
	}

	/**
	 * Whether the lease of this grant would be lost already: its local deadline, counted
	 * from when the granting try was sent, has passed.
	 */
	private boolean pastLocalDeadline() {
		long ttl = this.options.getTtl().toNanos();
		return System.nanoTime() - this.services.lossMargin().get().deadline(this.sentAt, ttl) >= 0;
	}

	/**
	 * A grant that the store confirmed after its local deadline: the store may let the
	 * lock go at any moment, so no lease is made of it, and the guarded work does not
	 * start. Its keys are released by token in the background, as those of a failed try.
	 * The store did answer, so the caller learns that the time-to-live was shorter than
	 * the store took, not that the store failed.
	 * @return the exception to throw
	 */
	private LockTtlTooShortException confirmedTooLate() {
		for (int i = 0; i < this.keys.size(); i++) {
			orphaned(i);
		}
		return new LockTtlTooShortException(description(), this.options.getTtl(),
				Duration.ofNanos(System.nanoTime() - this.sentAt));
	}

	/**
	 * The wait ended: without the lock, a writer's wait, which holds new readers of a
	 * read/write lock back, is ended in the background by its token, rather than at the
	 * end of its wait time (it stopped sooner when interrupted, cancelled or told to
	 * stop).
	 */
	void waitEnded() {
		if (!this.reply.isAcquired() && this.options.getKind().equals(LockKind.WRITE)) {
			orphaned(0);
		}
	}

	/** The acquisition is going to wait for another try. */
	void waiting() {
		this.waited = true;
	}

	boolean waited() {
		return this.waited;
	}

	/** The acquisition stopped waiting, without the lock, when asked to. */
	void stopped() {
		this.stopped = true;
	}

	/**
	 * How the acquisition ended, for its observation and listeners.
	 * @param result what the caller gets
	 * @return the outcome
	 */
	Outcome outcomeOf(LockAttempt result) {
		if (result.isAcquired()) {
			return Outcome.ACQUIRED;
		}
		return this.stopped ? Outcome.STOPPED : (this.waited ? Outcome.WAIT_TIMEOUT : Outcome.CONFLICT);
	}

}
