package dev.lockstarter.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.FencingOnDemandLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.LogSafe;
import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.util.Assert;

/**
 * The {@link Lease} of {@link LockTemplate} on one key. Its state moves once from held to
 * released or lost. The renewer and the release take {@link #guard} around their store
 * calls, so a renewal never lengthens a lock after its release began. Its times are those
 * of {@link LeaseTimes}.
 */
final class StoreLease extends LeaseTimes implements LossNotifyingLease, HeldLock {

	private static final Log logger = LogFactory.getLog(StoreLease.class);

	private static final VarHandle STATE;

	private static final VarHandle FENCING_TOKEN;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			STATE = lookup.findVarHandle(StoreLease.class, "state", State.class);
			FENCING_TOKEN = lookup.findVarHandle(StoreLease.class, "fencingToken", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private static final String DEADLINE_PASSED = "no acquisition or renewal that the lock store confirmed covers "
			+ "it any longer (its local deadline, the time-to-live less the loss margin, passed)";

	enum State {

		HELD, RELEASED, LOST

	}

	final ReentrantLock guard = new ReentrantLock();

	private final LockEvents events;

	private final StoreCapabilities store;

	private final String key;

	private final String storeKey;

	private final String token;

	/** Given by the acquisition, or drawn on first read ({@link OnDemandFencing}). */
	private volatile long fencingToken;

	/** Drawn at random: an identity hash costs more than the set insertion it serves. */
	private final int hash = ThreadLocalRandom.current().nextInt();

	// Set by the constructor through STATE, a VarHandle that NullAway cannot follow
	@SuppressWarnings("NullAway.Init")
	private volatile State state;

	/** The renewer that extends this lease, set when it is registered with one. */
	private volatile @Nullable LeaseRenewer renewer;

	/** The deadlines that declare this lease lost, set when it is registered. */
	private volatile @Nullable LeaseDeadlines deadlines;

	private final LossSignal lossSignal;

	StoreLease(LockEvents events, StoreCapabilities store, String key, String storeKey, String token, long fencingToken,
			LockOptions options, long acquiredAt, LossMargin lossMargin) {
		super(options, acquiredAt, lossMargin);
		this.events = events;
		this.lossSignal = new LossSignal(key);
		this.store = store;
		this.key = key;
		this.storeKey = storeKey;
		this.token = token;
		// Plain writes, published as LeaseTimes' are
		FENCING_TOKEN.set(this, fencingToken);
		STATE.set(this, State.HELD);
	}

	/**
	 * Register with the deadlines that lose it, and with a renewer ({@code null}: not
	 * renewed).
	 */
	void timeWith(LeaseDeadlines deadlines, @Nullable LeaseRenewer renewer) {
		this.deadlines = deadlines;
		deadlines.register(this);
		if (renewer != null) {
			this.renewer = renewer;
			renewer.register(this);
		}
	}

	/** Leases are equal only to themselves; the hash is drawn once, at random. */
	@Override
	public int hashCode() {
		return this.hash;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return this == other;
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public String name() {
		return LockEvents.nameOf(this.options);
	}

	/**
	 * {@inheritDoc} On a {@link FencingOnDemandLockStore} whose acquisition drew none,
	 * the first call draws it, under the guard; a failed draw is tried again next call.
	 */
	@Override
	public long fencingToken() {
		long drawn = this.fencingToken;
		FencingOnDemandLockStore onDemand = this.store.fencingOnDemand();
		if (drawn != AcquireReply.NO_FENCING_TOKEN || onDemand == null) {
			return drawn;
		}
		this.guard.lock();
		try {
			drawn = this.fencingToken;
			if (drawn == AcquireReply.NO_FENCING_TOKEN) {
				drawn = OnDemandFencing.draw(onDemand, this.key, this.storeKey, this.token,
						(this.state == State.HELD) ? null : this.state.name(), this::lost);
				this.fencingToken = drawn;
			}
			return drawn;
		}
		finally {
			this.guard.unlock();
		}
	}

	@Override
	public boolean isHeld() {
		return this.state == State.HELD && !pastLossDeadline(System.nanoTime());
	}

	/**
	 * {@inheritDoc} Sent only while the lease is held and its local deadline has not
	 * passed; past it, the lease is lost.
	 */
	@Override
	public boolean putResult(byte[] result, Duration ttl) {
		ResultStoringLockStore results = KeptResults.storeFor(this.store, result, ttl);
		this.guard.lock();
		try {
			return this.state == State.HELD && !loseIfPastDeadline()
					&& results.putResult(this.storeKey, this.token, result, ttl);
		}
		finally {
			this.guard.unlock();
		}
	}

	/**
	 * {@inheritDoc} One call of {@link ResultStoringLockStore#releaseKeepingResult}
	 * unless a minimum hold is left; a failed call leaves the lease held for close().
	 */
	@Override
	public boolean releaseKeepingResult(byte[] result, Duration ttl) {
		ResultStoringLockStore results = KeptResults.storeFor(this.store, result, ttl);
		if (minimumHoldLeft() > 0) {
			boolean kept = putResult(result, ttl);
			return release() && kept;
		}
		this.guard.lock();
		try {
			if (this.state != State.HELD || loseIfPastDeadline()) {
				return false;
			}
			boolean owned = results.releaseKeepingResult(this.storeKey, this.token, result, ttl);
			if (beginRelease()) {
				endRelease(owned, true);
			}
			return owned;
		}
		finally {
			this.guard.unlock();
		}
	}

	@Override
	public boolean extend(Duration ttl, Duration holdAtLeast) {
		checkExtension(ttl, holdAtLeast);
		this.guard.lock();
		try {
			if (this.state != State.HELD || loseIfPastDeadline()) {
				return false;
			}
			long sentAt = System.nanoTime();
			if (!this.store.store().extend(this.storeKey, this.token, ttl)) {
				lost("its extension found the lock expired or held by another owner");
				return false;
			}
			if (loseIfPastDeadline()) {
				// Its deadline passed while the extension was on its way: a lease once
				// past it is never held again, and the lock extended goes to the next
				// owner
				return false;
			}
			boolean renewSooner = extendedBy(sentAt, ttl, holdAtLeast);
			if (this.state != State.HELD) {
				// Lost meanwhile (its deadline came, read before it moved): the lock
				// extended goes to the next owner
				releaseQuietly();
				return false;
			}
			LeaseDeadlines deadlines = this.deadlines;
			if (deadlines != null) {
				// A shorter time-to-live than the lease's own moves the deadline earlier
				deadlines.register(this);
			}
			LeaseRenewer renewer = this.renewer;
			if (renewer != null && renewSooner) {
				renewer.register(this);
			}
			return true;
		}
		finally {
			this.guard.unlock();
		}
	}

	@Override
	public boolean release() {
		this.guard.lock();
		try {
			if (loseIfPastDeadline() || !beginRelease()) {
				return false;
			}
			long minimumHoldLeft = minimumHoldLeft();
			boolean owned;
			try {
				owned = (minimumHoldLeft > 0)
						? this.store.store().extend(this.storeKey, this.token, Duration.ofNanos(minimumHoldLeft))
						: this.store.store().release(this.storeKey, this.token);
			}
			catch (RuntimeException ex) {
				// Not released: the lock expires with its time-to-live
				endRelease(false, false);
				throw ex;
			}
			endRelease(owned, true);
			return owned;
		}
		finally {
			this.guard.unlock();
		}
	}

	/**
	 * Move from held to released and stop renewing; called with the {@link #guard} held.
	 * @return {@code false} if the lease was already released or lost
	 */
	boolean beginRelease() {
		// The renewer extends only leases in the held state
		return STATE.compareAndSet(this, State.HELD, State.RELEASED);
	}

	/** Finish a release begun with {@link #beginRelease()}; unanswered, it expires. */
	void endRelease(boolean owned, boolean answered) {
		this.events.finished(this);
		if (answered && !owned && logger.isWarnEnabled()) {
			logger.warn("Lock '" + LogSafe.key(this.key) + "' had expired or was taken over before its release; "
					+ "the guarded work was not exclusive for its whole run");
		}
		this.events.released(this, owned);
	}

	@Override
	public void close() {
		try {
			release();
		}
		catch (LockStoreException ex) {
			logger.warn(
					"Failed to release lock '" + LogSafe.key(this.key) + "'; it expires at the end of its time-to-live",
					ex);
		}
	}

	String storeKey() {
		return this.storeKey;
	}

	String token() {
		return this.token;
	}

	/**
	 * The store that releases and extends this lease: the mutex store or its shared view.
	 */
	LockStore store() {
		return this.store.store();
	}

	State state() {
		return this.state;
	}

	/** Record a renewal whose command was sent at {@code sentAt}. */
	void renewed(long sentAt) {
		if (loseIfPastDeadline()) {
			// Its deadline passed while the renewal was on its way: the lease stays
			// lost, and the lock renewed goes to the next owner
			return;
		}
		extended(sentAt);
		if (this.state == State.HELD) {
			this.events.renewed(this);
		}
		else if (this.state == State.LOST) {
			// Its deadline passed while this renewal was on its way: the lease stays
			// lost, and the lock it renewed goes to the next owner
			releaseQuietly();
		}
	}

	/**
	 * Lose this lease now if its local deadline passed before {@link LeaseDeadlines} came
	 * to it, so that a lease no longer {@link #isHeld()} is never used as held; its lock
	 * goes to the next owner at once. Called with the {@link #guard} held.
	 */
	boolean loseIfPastDeadline() {
		if (!loseIfPastDeadlineKeepingLock()) {
			return false;
		}
		releaseQuietly();
		return true;
	}

	/**
	 * Lose this lease now if its local deadline passed, as {@link #loseIfPastDeadline()}
	 * does, but leave the release of its lock to the caller (one that must not block).
	 * Called with the {@link #guard} held.
	 * @return whether it was lost now
	 */
	boolean loseIfPastDeadlineKeepingLock() {
		if (this.state != State.HELD || !pastLossDeadline(System.nanoTime())) {
			return false;
		}
		lost(DEADLINE_PASSED);
		return true;
	}

	/** Release this lost lease's lock, maybe still its own, for the next owner. */
	private void releaseQuietly() {
		try {
			this.store.store().release(this.storeKey, this.token);
		}
		catch (LockStoreException ex) {
			logger.debug(
					"Failed to release lost lock '" + LogSafe.key(this.key) + "'; it expires with its time-to-live",
					ex);
		}
	}

	/**
	 * The local deadline passed with no extension confirmed: the store may already have
	 * let the lock expire, so the lease is lost, whether it is renewed or not.
	 */
	void deadlinePassed(Executor followUps) {
		// A renewal confirmed meanwhile moved the deadline after it was read, and found
		// this lease still held, so left its lock alone: the lock it lengthened goes to
		// the next owner here. The renewal wrote the deadline before it read the state,
		// and this reads the deadline after it changed the state, so one of the two sees
		// the other.
		if (lost(DEADLINE_PASSED, followUps) && !pastLossDeadline(System.nanoTime())) {
			followUps.execute(this::releaseQuietly);
		}
	}

	/** Lose this held lease, telling why; {@code false} if it was not held. */
	boolean lost(String reason) {
		return lost(reason, Runnable::run);
	}

	/**
	 * Lose this held lease: its loss actions are told at once (with
	 * {@code OnLeaseLost.CANCEL}, the cancellation of its work), before the loss is
	 * logged and told to the listeners (a {@code LockLostEvent} among them) on
	 * {@code listeners}, so that no listener delays the cancellation.
	 * @return {@code false} if it was not held
	 */
	private boolean lost(String reason, Executor listeners) {
		if (!STATE.compareAndSet(this, State.HELD, State.LOST)) {
			return false;
		}
		this.events.finished(this);
		this.lossSignal.tell(reason);
		listeners.execute(() -> {
			logger.warn("Lock '" + LogSafe.key(this.key) + "' was lost: " + reason
					+ "; the work it guards is no longer exclusive");
			this.events.lost(this, reason);
		});
		return true;
	}

	/** Past its maximum hold the lease is not renewed: its work is told as of a loss. */
	void pastMaxHold() {
		this.lossSignal.tell("it has been held longer than its maximum hold time and is no longer renewed");
	}

	/**
	 * {@inheritDoc} Also told when the renewer stops renewing at the maximum hold time.
	 */
	@Override
	public void whenLost(Consumer<String> action) {
		Assert.notNull(action, "'action' must not be null");
		this.lossSignal.add(action, this.state == State.RELEASED);
	}

	@Override
	public String toString() {
		return "Lease[" + this.key + ", " + this.state + "]";
	}

}
