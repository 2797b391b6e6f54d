package dev.lockstarter.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
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
 * calls, so a renewal never lengthens a lock after its release began.
 */
final class StoreLease implements LossNotifyingLease, HeldLock {

	private static final Log logger = LogFactory.getLog(StoreLease.class);

	private static final VarHandle STATE;

	private static final VarHandle FENCING_TOKEN;

	private static final VarHandle RENEWING;

	private static final VarHandle EXPIRES_AT;

	private static final VarHandle LOSS_AT;

	private static final VarHandle RENEW_AT;

	private static final VarHandle HOLD_UNTIL;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			STATE = lookup.findVarHandle(StoreLease.class, "state", State.class);
			FENCING_TOKEN = lookup.findVarHandle(StoreLease.class, "fencingToken", long.class);
			RENEWING = lookup.findVarHandle(StoreLease.class, "renewing", boolean.class);
			EXPIRES_AT = lookup.findVarHandle(StoreLease.class, "expiresAt", long.class);
			LOSS_AT = lookup.findVarHandle(StoreLease.class, "lossAt", long.class);
			RENEW_AT = lookup.findVarHandle(StoreLease.class, "renewAt", long.class);
			HOLD_UNTIL = lookup.findVarHandle(StoreLease.class, "holdUntil", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	enum State {

		HELD, RELEASED, LOST

	}

	final ReentrantLock guard = new ReentrantLock();

	private final LockEvents events;

	private final StoreCapabilities store;

	private final String key;

	private final String storeKey;

	private final String token;

	/**
	 * The fencing token: given by the acquisition, or drawn on first read from a
	 * {@link FencingOnDemandLockStore}, under the {@link #guard}.
	 */
	private volatile long fencingToken;

	private final LockOptions options;

	private final long acquiredAt;

	/**
	 * The hash of this lease in the template's set of held leases: drawn at random, since
	 * an identity hash costs its first call more than the rest of the insertion.
	 */
	private final int hash = ThreadLocalRandom.current().nextInt();

	/** The wall-clock time of the acquisition, worked out when first asked for. */
	private volatile @Nullable Instant acquiredAtInstant;

	// Set by the constructor through STATE, a VarHandle that NullAway cannot follow
	@SuppressWarnings("NullAway.Init")
	private volatile State state;

	/**
	 * Whether the {@link LeaseRenewer} extends this lease while it is held: from the
	 * options, until it passes its maximum hold time.
	 */
	volatile boolean renewing;

	/**
	 * Monotonic time at which the lock expires unless extended; a conservative estimate.
	 */
	private volatile long expiresAt;

	/**
	 * Monotonic time at which the lease is lost in this JVM unless the store confirms an
	 * extension sent before it: {@link #expiresAt} less the {@link LossMargin}.
	 */
	private volatile long lossAt;

	private static final String DEADLINE_PASSED = "no acquisition or renewal that the lock store confirmed covers "
			+ "it any longer (its local deadline, the time-to-live less the loss margin, passed)";

	private final LossMargin lossMargin;

	/** Monotonic time at which the renewer should extend the lock next. */
	volatile long renewAt;

	/**
	 * Monotonic time until which a release only shortens the lock: the acquisition plus
	 * the minimum hold, moved later by an {@linkplain #extend(Duration, Duration)
	 * extension} that asks for more. Written under the {@link #guard}.
	 */
	private volatile long holdUntil;

	/** The renewer that extends this lease, set when it is registered with one. */
	private volatile @Nullable LeaseRenewer renewer;

	/** The deadlines that declare this lease lost, set when it is registered. */
	private volatile @Nullable LeaseDeadlines deadlines;

	private final LossSignal lossSignal;

	StoreLease(LockEvents events, StoreCapabilities store, String key, String storeKey, String token, long fencingToken,
			LockOptions options, long acquiredAt, LossMargin lossMargin) {
		this.events = events;
		this.lossMargin = lossMargin;
		this.lossSignal = new LossSignal(key);
		this.store = store;
		this.key = key;
		this.storeKey = storeKey;
		this.token = token;
		this.options = options;
		this.acquiredAt = acquiredAt;
		// Plain writes: the lease reaches other threads (the renewer, readers of the
		// held locks) only through the template's concurrent set of held leases, whose
		// insertion publishes these; a volatile write here would fence each of them
		FENCING_TOKEN.set(this, fencingToken);
		STATE.set(this, State.HELD);
		RENEWING.set(this, options.isRenew());
		long ttl = options.getTtl().toNanos();
		EXPIRES_AT.set(this, acquiredAt + ttl);
		LOSS_AT.set(this, lossMargin.deadline(acquiredAt, ttl));
		RENEW_AT.set(this, acquiredAt + ttl / 3);
		HOLD_UNTIL.set(this, acquiredAt + options.getHoldAtLeast().toNanos());
	}

	/**
	 * Register this lease with the deadlines that declare it lost at its local deadline,
	 * and, if it is renewed, with the renewer that extends it while it is held.
	 * @param deadlines the template's deadlines
	 * @param renewer the template's renewer, or {@code null} if the lease is not renewed
	 */
	void timeWith(LeaseDeadlines deadlines, @Nullable LeaseRenewer renewer) {
		this.deadlines = deadlines;
		deadlines.register(this);
		if (renewer != null) {
			this.renewer = renewer;
			renewer.register(this);
		}
	}

	/**
	 * Leases are equal only to themselves; the hash is drawn once, at random.
	 */
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

	@Override
	public Instant acquiredAt() {
		Instant instant = this.acquiredAtInstant;
		if (instant == null) {
			instant = Instant.now().minusNanos(System.nanoTime() - this.acquiredAt);
			this.acquiredAtInstant = instant;
		}
		return instant;
	}

	/** Return when the lock was acquired, from {@link System#nanoTime()}. */
	long acquiredAtNanos() {
		return this.acquiredAt;
	}

	@Override
	public Duration age() {
		return Duration.ofNanos(Math.max(0, System.nanoTime() - this.acquiredAt));
	}

	@Override
	public Duration timeToExpiry() {
		return Duration.ofNanos(Math.max(0, this.expiresAt - System.nanoTime()));
	}

	@Override
	public LockOptions options() {
		return this.options;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * On a {@link FencingOnDemandLockStore} whose acquisition drew none, the first call
	 * draws the token from the store, one round trip, and later calls answer the same
	 * token.
	 * @throws LockNotHeldException if the token must be drawn but the lease was released
	 * or lost, or the store found its lock expired or held by another owner
	 * @throws dev.lockstarter.store.LockStoreException if the store cannot be reached to
	 * draw the token; a later call tries again
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
			if (drawn != AcquireReply.NO_FENCING_TOKEN) {
				return drawn;
			}
			if (this.state != State.HELD) {
				throw new LockNotHeldException(this.key, "Lock '" + this.key + "' is no longer held ("
						+ this.state.name().toLowerCase(Locale.ROOT) + "): its fencing token cannot be drawn");
			}
			drawn = onDemand.fencingToken(this.storeKey, this.token);
			if (drawn == AcquireReply.NO_FENCING_TOKEN) {
				lost("drawing its fencing token found the lock expired or held by another owner");
				throw new LockNotHeldException(this.key,
						"Lock '" + this.key + "' had expired or was taken over before its fencing token was drawn");
			}
			this.fencingToken = drawn;
			return drawn;
		}
		finally {
			this.guard.unlock();
		}
	}

	@Override
	public boolean isHeld() {
		return this.state == State.HELD && System.nanoTime() - this.lossAt < 0;
	}

	@Override
	public boolean putResult(byte[] result, Duration ttl) {
		ResultStoringLockStore results = checkResult(this.store, result, ttl);
		return this.state == State.HELD && results.putResult(this.storeKey, this.token, result, ttl);
	}

	/**
	 * Store a lease's result by its store key and owner token, checking the arguments and
	 * that the store keeps results; shared with {@link DetachedLease}.
	 */
	static boolean putResult(StoreCapabilities store, String storeKey, String token, byte[] result, Duration ttl) {
		return checkResult(store, result, ttl).putResult(storeKey, token, result, ttl);
	}

	private static ResultStoringLockStore checkResult(StoreCapabilities store, byte[] result, Duration ttl) {
		Assert.notNull(result, "'result' must not be null");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		return store.results();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * One call of {@link ResultStoringLockStore#releaseKeepingResult}, unless the lease
	 * must still be kept for its minimum hold time. A failed call leaves the lease held,
	 * so that {@link #close()} tries to release it.
	 */
	@Override
	public boolean releaseKeepingResult(byte[] result, Duration ttl) {
		ResultStoringLockStore results = checkResult(this.store, result, ttl);
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
			this.expiresAt = sentAt + ttl.toNanos();
			this.lossAt = this.lossMargin.deadline(sentAt, ttl.toNanos());
			if (this.holdUntil - (sentAt + holdAtLeast.toNanos()) < 0) {
				this.holdUntil = sentAt + holdAtLeast.toNanos();
			}
			LeaseDeadlines deadlines = this.deadlines;
			if (deadlines != null) {
				// A shorter time-to-live than the lease's own moves the deadline earlier
				deadlines.register(this);
			}
			LeaseRenewer renewer = this.renewer;
			long renewAt = sentAt + ttl.toNanos() / 3;
			if (renewer != null && renewAt - this.renewAt < 0) {
				// A shorter time-to-live than the lease's own: renew before it runs out
				this.renewAt = renewAt;
				renewer.register(this);
			}
			return true;
		}
		finally {
			this.guard.unlock();
		}
	}

	/**
	 * Check the arguments of an extension; shared with the other leases.
	 */
	static void checkExtension(Duration ttl, Duration holdAtLeast) {
		Assert.notNull(ttl, "'ttl' must not be null");
		Assert.notNull(holdAtLeast, "'holdAtLeast' must not be null");
		Assert.isTrue(!ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		Assert.isTrue(!holdAtLeast.isNegative(), "'holdAtLeast' must not be negative");
		Assert.isTrue(holdAtLeast.compareTo(ttl) <= 0, "'holdAtLeast' must not be longer than 'ttl'");
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

	/**
	 * Return how long the lock must still be kept for its minimum hold time.
	 * @return the nanoseconds left, zero or less when none
	 */
	long minimumHoldLeft() {
		return this.holdUntil - System.nanoTime();
	}

	/**
	 * Finish a release begun with {@link #beginRelease()}.
	 * @param owned whether the store found the lock still owned by this lease
	 * @param answered whether the store answered; if not, the lock expires with its
	 * time-to-live
	 */
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

	Duration ttl() {
		return this.options.getTtl();
	}

	/**
	 * The store that releases and extends this lease: the mutex store, or its shared
	 * view.
	 */
	LockStore store() {
		return this.store.store();
	}

	State state() {
		return this.state;
	}

	long expiresAt() {
		return this.expiresAt;
	}

	/** Return when this lease is lost in this JVM unless an extension is confirmed. */
	long lossAt() {
		return this.lossAt;
	}

	boolean isPastMaxHold(long now) {
		Duration maxHold = this.options.getMaxHold();
		return maxHold != null && now - this.acquiredAt >= maxHold.toNanos();
	}

	/** Record an acquisition or extension whose command was sent at {@code sentAt}. */
	void extended(long sentAt) {
		long ttl = this.options.getTtl().toNanos();
		this.expiresAt = sentAt + ttl;
		this.lossAt = this.lossMargin.deadline(sentAt, ttl);
		this.renewAt = sentAt + ttl / 3;
	}

	/** Record a renewal whose command was sent at {@code sentAt}. */
	void renewed(long sentAt) {
		extended(sentAt);
		if (this.state == State.HELD) {
			this.events.renewed(this);
		}
		else if (this.state == State.LOST) {
			// Its deadline passed while this renewal was on its way: the lease stays
			// lost,
			// and the lock it renewed goes to the next owner
			releaseQuietly();
		}
	}

	/**
	 * Lose this held lease now if its local deadline passed before {@link LeaseDeadlines}
	 * came to it, so that a lease that {@link #isHeld()} no longer calls held is never
	 * released, extended or given a result as if it were; its lock, which may still be
	 * this lease's in the store, is then released, without waiting, for the next owner.
	 * Called with the {@link #guard} held.
	 * @return whether the lease was lost now
	 */
	private boolean loseIfPastDeadline() {
		if (this.state != State.HELD || System.nanoTime() - this.lossAt < 0) {
			return false;
		}
		lost(DEADLINE_PASSED);
		releaseQuietly();
		return true;
	}

	/**
	 * Release the lock of this lost lease, which may still be its own in the store, for
	 * the next owner; a failure leaves it to expire with its time-to-live.
	 */
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
	void deadlinePassed() {
		// A renewal confirmed meanwhile moved the deadline after it was read, and found
		// this lease still held, so left its lock alone: the lock it lengthened goes to
		// the next owner here. The renewal wrote the deadline before it read the state,
		// and this reads the deadline after it changed the state, so one of the two sees
		// the other.
		if (lost(DEADLINE_PASSED) && System.nanoTime() - this.lossAt < 0) {
			releaseQuietly();
		}
	}

	/**
	 * Lose this held lease.
	 * @param reason why, for the log and the listeners
	 * @return whether it was held until now
	 */
	boolean lost(String reason) {
		if (!STATE.compareAndSet(this, State.HELD, State.LOST)) {
			return false;
		}
		this.events.finished(this);
		logger.warn("Lock '" + LogSafe.key(this.key) + "' was lost: " + reason
				+ "; the work it guards is no longer exclusive");
		this.events.lost(this, reason);
		this.lossSignal.tell(reason);
		return true;
	}

	/**
	 * The renewer stopped renewing this lease at its maximum hold time: it expires within
	 * its time-to-live, so the work it guards is told as of a loss.
	 */
	void pastMaxHold() {
		this.lossSignal.tell("it has been held longer than its maximum hold time and is no longer renewed");
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Also told when the renewer stops renewing this lease at its maximum hold time.
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
