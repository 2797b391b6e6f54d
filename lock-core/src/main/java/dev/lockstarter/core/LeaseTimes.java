package dev.lockstarter.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The times of a lease on one key, from {@link System#nanoTime()}: when it was acquired,
 * when its lock expires unless extended, when it is lost in this JVM unless the store
 * confirms an extension sent before then, when the renewer extends it next, and until
 * when a release only shortens it (its minimum hold).
 */
abstract class LeaseTimes {

	private static final VarHandle RENEWING;

	private static final VarHandle EXPIRES_AT;

	private static final VarHandle LOSS_AT;

	private static final VarHandle RENEW_AT;

	private static final VarHandle HOLD_UNTIL;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			RENEWING = lookup.findVarHandle(LeaseTimes.class, "renewing", boolean.class);
			EXPIRES_AT = lookup.findVarHandle(LeaseTimes.class, "expiresAt", long.class);
			LOSS_AT = lookup.findVarHandle(LeaseTimes.class, "lossAt", long.class);
			RENEW_AT = lookup.findVarHandle(LeaseTimes.class, "renewAt", long.class);
			HOLD_UNTIL = lookup.findVarHandle(LeaseTimes.class, "holdUntil", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	final LockOptions options;

	private final long acquiredAt;

	private final LossMargin lossMargin;

	/**
	 * Whether the {@link LeaseRenewer} extends this lease while it is held: from the
	 * options, until it passes its maximum hold time.
	 */
	volatile boolean renewing;

	/** When the lock expires unless extended; a conservative estimate. */
	private volatile long expiresAt;

	/** {@link #expiresAt} less the {@link LossMargin}. */
	private volatile long lossAt;

	/** When the renewer should extend the lock next. */
	volatile long renewAt;

	/**
	 * Until when a release only shortens the lock: the acquisition plus the minimum hold,
	 * moved later by an extension that asks for more.
	 */
	private volatile long holdUntil;

	LeaseTimes(LockOptions options, long acquiredAt, LossMargin lossMargin) {
		this.options = options;
		this.acquiredAt = acquiredAt;
		this.lossMargin = lossMargin;
		// Plain writes: the lease reaches other threads (the renewer, readers of the
		// held locks) only through the template's concurrent set of held leases, whose
		// insertion publishes these; a volatile write here would fence each of them
		RENEWING.set(this, options.isRenew());
		long ttl = options.getTtl().toNanos();
		EXPIRES_AT.set(this, acquiredAt + ttl);
		LOSS_AT.set(this, lossMargin.deadline(acquiredAt, ttl));
		RENEW_AT.set(this, acquiredAt + ttl / 3);
		HOLD_UNTIL.set(this, acquiredAt + options.getHoldAtLeast().toNanos());
	}

	/** The wall-clock time of the acquisition, worked out when first asked for. */
	private volatile @Nullable Instant acquiredAtInstant;

	/** Return the options of the acquisition, as {@link HeldLock#options()}. */
	public LockOptions options() {
		return this.options;
	}

	/** Return when the lock was acquired, by the wall clock. */
	public Instant acquiredAt() {
		Instant instant = this.acquiredAtInstant;
		if (instant == null) {
			instant = Instant.now().minusNanos(System.nanoTime() - this.acquiredAt);
			this.acquiredAtInstant = instant;
		}
		return instant;
	}

	/** Return when the lock was acquired. */
	long acquiredAtNanos() {
		return this.acquiredAt;
	}

	/** Return how long the lock has been held. */
	public Duration age() {
		return Duration.ofNanos(Math.max(0, System.nanoTime() - this.acquiredAt));
	}

	/** Return how long the lock is held at most unless extended. */
	public Duration timeToExpiry() {
		return Duration.ofNanos(Math.max(0, this.expiresAt - System.nanoTime()));
	}

	long expiresAt() {
		return this.expiresAt;
	}

	/** Return when this lease is lost in this JVM unless an extension is confirmed. */
	long lossAt() {
		return this.lossAt;
	}

	/** Whether the loss deadline has passed at {@code now}. */
	boolean pastLossDeadline(long now) {
		return now - this.lossAt >= 0;
	}

	Duration ttl() {
		return this.options.getTtl();
	}

	boolean isPastMaxHold(long now) {
		Duration maxHold = this.options.getMaxHold();
		return maxHold != null && now - this.acquiredAt >= maxHold.toNanos();
	}

	/**
	 * Return how long the lock must still be kept for its minimum hold time.
	 * @return the nanoseconds left, zero or less when none
	 */
	long minimumHoldLeft() {
		return this.holdUntil - System.nanoTime();
	}

	/** Record an acquisition or renewal whose command was sent at {@code sentAt}. */
	void extended(long sentAt) {
		long ttl = this.options.getTtl().toNanos();
		this.expiresAt = sentAt + ttl;
		this.lossAt = this.lossMargin.deadline(sentAt, ttl);
		this.renewAt = sentAt + ttl / 3;
	}

	/**
	 * Record an extension that the store confirmed, sent at {@code sentAt}.
	 * @param sentAt when the command was sent
	 * @param ttl the time-to-live it asked for
	 * @param holdAtLeast the minimum hold it asked for, from {@code sentAt}
	 * @return whether the renewal is due earlier than planned (a shorter time-to-live
	 * than the lease's own), and now planned at a third of {@code ttl}
	 */
	boolean extendedBy(long sentAt, Duration ttl, Duration holdAtLeast) {
		this.expiresAt = sentAt + ttl.toNanos();
		this.lossAt = this.lossMargin.deadline(sentAt, ttl.toNanos());
		if (this.holdUntil - (sentAt + holdAtLeast.toNanos()) < 0) {
			this.holdUntil = sentAt + holdAtLeast.toNanos();
		}
		long renewAt = sentAt + ttl.toNanos() / 3;
		if (renewAt - this.renewAt < 0) {
			this.renewAt = renewAt;
			return true;
		}
		return false;
	}

	/** Check the arguments of an extension; shared by every lease. */
	static void checkExtension(Duration ttl, Duration holdAtLeast) {
		LockOptions.checkedTtl(ttl);
		Assert.notNull(holdAtLeast, "'holdAtLeast' must not be null");
		Assert.isTrue(!holdAtLeast.isNegative(), "'holdAtLeast' must not be negative");
		Assert.isTrue(holdAtLeast.compareTo(ttl) <= 0, "'holdAtLeast' must not be longer than 'ttl'");
	}

}
