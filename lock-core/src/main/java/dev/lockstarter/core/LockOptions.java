package dev.lockstarter.core;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * How to acquire and hold one lock: its time-to-live, how long to wait for it, whether to
 * renew it while held, and for how long at least and at most to hold it. Immutable; each
 * {@code with...} method returns a copy.
 *
 * <pre class="code">
 * LockOptions options = LockOptions.ttl(Duration.ofSeconds(10))
 *     .withWaitTime(Duration.ofSeconds(5));
 * try (Lease lease = locks.acquire("user:" + id, options)) { ... }
 * </pre>
 *
 * @since 0.1.0
 */
public final class LockOptions {

	/**
	 * The shortest time-to-live: every store keeps a lock's time-to-live in whole
	 * milliseconds, so a shorter one would be written as none at all.
	 */
	public static final Duration MIN_TTL = Duration.ofMillis(1);

	private final Duration ttl;

	private final Duration waitTime;

	private final int retries;

	private final Duration retryInterval;

	private final Duration holdAtLeast;

	private final boolean renew;

	private final @Nullable Duration maxHold;

	private final @Nullable String name;

	private final LockKind kind;

	private LockOptions(Duration ttl, Duration waitTime, int retries, Duration retryInterval, Duration holdAtLeast,
			boolean renew, @Nullable Duration maxHold, @Nullable String name, LockKind kind) {
		this.ttl = ttl;
		this.waitTime = waitTime;
		this.retries = retries;
		this.retryInterval = retryInterval;
		this.holdAtLeast = holdAtLeast;
		this.renew = renew;
		this.maxHold = maxHold;
		this.name = name;
		this.kind = kind;
	}

	/**
	 * Options with the given time-to-live, no waiting, renewal on, no minimum and no
	 * maximum hold time.
	 * @param ttl how long the lock is held at most if it is neither released nor renewed,
	 * at least {@link #MIN_TTL}
	 * @return the options
	 */
	public static LockOptions ttl(Duration ttl) {
		return new LockOptions(checkedTtl(ttl), Duration.ZERO, 0, Duration.ZERO, Duration.ZERO, true, null, null,
				LockKind.MUTEX);
	}

	/**
	 * Set the time-to-live, keeping every other option.
	 * @param ttl how long the lock is held at most if it is neither released nor renewed
	 * @return new options
	 * @since 0.1.0
	 */
	public LockOptions withTtl(Duration ttl) {
		return new LockOptions(checkedTtl(ttl), this.waitTime, this.retries, this.retryInterval, this.holdAtLeast,
				this.renew, this.maxHold, this.name, this.kind);
	}

	/**
	 * Wait up to {@code waitTime} for a held lock. The waiter tries again as soon as the
	 * store announces a release, and polls with backoff as a safety net. Replaces any
	 * {@link #withRetries retries}.
	 * @param waitTime the longest wait, zero for none
	 * @return new options
	 */
	public LockOptions withWaitTime(Duration waitTime) {
		return new LockOptions(this.ttl, notNegative(waitTime, "waitTime"), 0, Duration.ZERO, this.holdAtLeast,
				this.renew, this.maxHold, this.name, this.kind);
	}

	/**
	 * Try again up to {@code retries} times, {@code interval} apart, for a held lock: a
	 * fixed schedule, as in "3 retries, 200 ms apart". Replaces any {@link #withWaitTime
	 * wait time}.
	 * @param retries the number of attempts after the first
	 * @param interval the pause before each retry, positive
	 * @return new options
	 */
	public LockOptions withRetries(int retries, Duration interval) {
		Assert.isTrue(retries >= 0, () -> "'retries' must not be negative, was " + retries);
		return new LockOptions(this.ttl, Duration.ZERO, retries, positive(interval, "interval"), this.holdAtLeast,
				this.renew, this.maxHold, this.name, this.kind);
	}

	/**
	 * Keep the lock at least this long after it was acquired, even if released earlier: a
	 * release before then only shortens the lock's time-to-live to what remains, so a
	 * repeated request shortly after a fast one is still rejected.
	 * @param holdAtLeast the minimum hold time, zero for none
	 * @return new options
	 */
	public LockOptions withHoldAtLeast(Duration holdAtLeast) {
		return new LockOptions(this.ttl, this.waitTime, this.retries, this.retryInterval,
				notNegative(holdAtLeast, "holdAtLeast"), this.renew, this.maxHold, this.name, this.kind);
	}

	/**
	 * Set whether to extend the lock before it expires for as long as it is held.
	 * @param renew {@code true} to renew (the default)
	 * @return new options
	 */
	public LockOptions withRenewal(boolean renew) {
		return new LockOptions(this.ttl, this.waitTime, this.retries, this.retryInterval, this.holdAtLeast, renew,
				this.maxHold, this.name, this.kind);
	}

	/**
	 * Stop renewing after the lock has been held this long, so a hung holder cannot keep
	 * it forever; the lock then expires one time-to-live later.
	 * @param maxHold the longest renewed hold, or {@code null} for no limit
	 * @return new options
	 */
	public LockOptions withMaxHold(@Nullable Duration maxHold) {
		return new LockOptions(this.ttl, this.waitTime, this.retries, this.retryInterval, this.holdAtLeast, this.renew,
				(maxHold != null) ? positive(maxHold, "maxHold") : null, this.name, this.kind);
	}

	/**
	 * Name the lock for meters, traces and the Actuator endpoint: a low-cardinality name
	 * shared by every key of one kind of lock, such as {@code "UserService.register"}.
	 * Not part of the key, never a key value.
	 * @param name the name, or {@code null} for none (reported as {@code "unnamed"})
	 * @return new options
	 */
	public LockOptions withName(@Nullable String name) {
		Assert.isTrue(name == null || !name.isBlank(), "'name' must not be blank");
		return new LockOptions(this.ttl, this.waitTime, this.retries, this.retryInterval, this.holdAtLeast, this.renew,
				this.maxHold, name, this.kind);
	}

	/**
	 * Set the kind of lock: {@link LockKind#MUTEX} (the default), permits, or a side of a
	 * read/write lock. Every kind but the mutex needs a store that keeps such locks, and
	 * takes one key.
	 * @param kind the kind
	 * @return new options
	 */
	public LockOptions withKind(LockKind kind) {
		Assert.notNull(kind, "'kind' must not be null");
		return new LockOptions(this.ttl, this.waitTime, this.retries, this.retryInterval, this.holdAtLeast, this.renew,
				this.maxHold, this.name, kind);
	}

	/**
	 * Return the kind of lock.
	 * @return the kind, {@link LockKind#MUTEX} unless set
	 */
	public LockKind getKind() {
		return this.kind;
	}

	/**
	 * Return the name under which the lock is reported.
	 * @return the name, or {@code null} for none
	 */
	public @Nullable String getName() {
		return this.name;
	}

	/**
	 * Return the time-to-live.
	 * @return the time-to-live, positive
	 */
	public Duration getTtl() {
		return this.ttl;
	}

	/**
	 * Return the longest wait for a held lock.
	 * @return the wait time, zero for none
	 */
	public Duration getWaitTime() {
		return this.waitTime;
	}

	/**
	 * Return the number of fixed-interval retries.
	 * @return the retries, zero for none
	 */
	public int getRetries() {
		return this.retries;
	}

	/**
	 * Return the pause between retries.
	 * @return the interval, zero when there are no retries
	 */
	public Duration getRetryInterval() {
		return this.retryInterval;
	}

	/**
	 * Return the minimum hold time.
	 * @return the minimum hold time, zero for none
	 */
	public Duration getHoldAtLeast() {
		return this.holdAtLeast;
	}

	/**
	 * Return whether the lock is renewed while held.
	 * @return {@code true} if renewed
	 */
	public boolean isRenew() {
		return this.renew;
	}

	/**
	 * Return the longest renewed hold.
	 * @return the maximum hold time, or {@code null} for no limit
	 */
	public @Nullable Duration getMaxHold() {
		return this.maxHold;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof LockOptions that && this.ttl.equals(that.ttl)
				&& this.waitTime.equals(that.waitTime) && this.retries == that.retries
				&& this.retryInterval.equals(that.retryInterval) && this.holdAtLeast.equals(that.holdAtLeast)
				&& this.renew == that.renew && Objects.equals(this.maxHold, that.maxHold)
				&& Objects.equals(this.name, that.name) && this.kind.equals(that.kind));
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.ttl, this.waitTime, this.retries, this.retryInterval, this.holdAtLeast, this.renew,
				this.maxHold, this.name, this.kind);
	}

	@Override
	public String toString() {
		return "LockOptions[" + ((this.name != null) ? "name=" + this.name + ", " : "") + "ttl=" + this.ttl
				+ ", waitTime=" + this.waitTime + ", retries=" + this.retries + "x" + this.retryInterval
				+ ", holdAtLeast=" + this.holdAtLeast + ", renew=" + this.renew + ", maxHold=" + this.maxHold
				+ (this.kind.isMutex() ? "" : ", kind=" + this.kind) + "]";
	}

	/**
	 * Check a time-to-live given to a lock or an extension.
	 * @param ttl the time-to-live
	 * @return the time-to-live
	 * @throws IllegalArgumentException if it is {@code null} or shorter than
	 * {@link #MIN_TTL}
	 */
	static Duration checkedTtl(Duration ttl) {
		Assert.notNull(ttl, "'ttl' must not be null");
		Assert.isTrue(ttl.compareTo(MIN_TTL) >= 0,
				() -> "'ttl' must be at least 1 ms, the shortest time-to-live that a lock store keeps, was " + ttl);
		return ttl;
	}

	private static Duration positive(Duration duration, String name) {
		Assert.notNull(duration, () -> "'" + name + "' must not be null");
		Assert.isTrue(!duration.isNegative() && !duration.isZero(),
				() -> "'" + name + "' must be positive, was " + duration);
		return duration;
	}

	private static Duration notNegative(Duration duration, String name) {
		Assert.notNull(duration, () -> "'" + name + "' must not be null");
		Assert.isTrue(!duration.isNegative(), () -> "'" + name + "' must not be negative, was " + duration);
		return duration;
	}

}
