package dev.lockstarter.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.annotation.OnLeaseLost;
import dev.lockstarter.core.Internal;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.key.MethodKeyResolver;
import org.springframework.core.ReactiveAdapter;

/**
 * The parsed form of one method's {@link dev.lockstarter.annotation.ExclusiveRequest}.
 * Each duration is {@code null} when the annotation leaves it to the configured default.
 *
 * @since 0.1.0
 */
@Internal
public final class ExclusiveRequestAttribute extends LockAttribute {

	private final MethodKeyResolver keyResolver;

	private final @Nullable Duration ttl;

	private final @Nullable Duration waitTime;

	private final int retries;

	private final @Nullable Duration retryInterval;

	private final @Nullable Duration holdAtLeast;

	private final @Nullable Duration maxHold;

	private final int conflictStatus;

	private final boolean completionStage;

	private final boolean eachKey;

	private final @Nullable ReactiveAdapter reactiveAdapter;

	private final @Nullable ResultSharing sharing;

	private final OnLeaseLost onLeaseLost;

	private final @Nullable FallbackMethod fallback;

	ExclusiveRequestAttribute(LockKind kind, MethodKeyResolver keyResolver, @Nullable Duration ttl,
			@Nullable Duration waitTime, int retries, @Nullable Duration retryInterval, @Nullable Duration holdAtLeast,
			@Nullable Duration maxHold, int conflictStatus, boolean completionStage, boolean eachKey,
			@Nullable ReactiveAdapter reactiveAdapter, @Nullable ResultSharing sharing, OnLeaseLost onLeaseLost,
			@Nullable FallbackMethod fallback) {
		super(kind);
		this.keyResolver = keyResolver;
		this.ttl = ttl;
		this.waitTime = waitTime;
		this.retries = retries;
		this.retryInterval = retryInterval;
		this.holdAtLeast = holdAtLeast;
		this.maxHold = maxHold;
		this.conflictStatus = conflictStatus;
		this.completionStage = completionStage;
		this.eachKey = eachKey;
		this.reactiveAdapter = reactiveAdapter;
		this.sharing = sharing;
		this.onLeaseLost = onLeaseLost;
		this.fallback = fallback;
	}

	/**
	 * Return the lock name.
	 * @return the lock name
	 */
	@Override
	public String name() {
		return this.keyResolver.name();
	}

	/**
	 * Return the resolver of the lock key.
	 * @return the key resolver
	 */
	public MethodKeyResolver keyResolver() {
		return this.keyResolver;
	}

	/**
	 * Return the HTTP status of a conflict.
	 * @return the status, or 0 for the configured default
	 */
	public int conflictStatus() {
		return this.conflictStatus;
	}

	/**
	 * Return whether the method returns a {@link java.util.concurrent.CompletionStage},
	 * whose completion releases the lock.
	 * @return {@code true} for an asynchronous method
	 */
	@Override
	public boolean completionStage() {
		return this.completionStage;
	}

	/**
	 * Return the adapter of the method's reactive return type (a {@code Mono}, a
	 * {@code Flux}, or another type of the
	 * {@link org.springframework.core.ReactiveAdapterRegistry}), whose subscription takes
	 * the lock and whose completion, error or cancellation releases it.
	 * @return the adapter, or {@code null} if the method does not return a reactive type
	 * @since 0.1.0
	 */
	public @Nullable ReactiveAdapter reactiveAdapter() {
		return this.reactiveAdapter;
	}

	/**
	 * Return whether each key expression names a lock of its own, all of them held while
	 * the method runs ({@link dev.lockstarter.annotation.ExclusiveRequest#eachKey()}).
	 * @return {@code true} for a lock on each key
	 * @since 0.1.0
	 */
	public boolean eachKey() {
		return this.eachKey;
	}

	/**
	 * Return how this method shares its result with the callers that wait for it
	 * ({@link dev.lockstarter.annotation.OnConflict#SHARE_RESULT}).
	 * @return the result sharing, or {@code null} if conflicting calls are rejected
	 */
	public @Nullable ResultSharing resultSharing() {
		return this.sharing;
	}

	/**
	 * Return the lock options of the callers that wait for a holder's result: those of
	 * {@link #options}, with the annotation's wait time or, without one, twice the lock's
	 * time-to-live.
	 * @param defaults the configured defaults
	 * @return the options
	 */
	public LockOptions sharedResultOptions(LockOptions defaults) {
		LockOptions options = options(defaults);
		return (this.waitTime != null) ? options : options.withWaitTime(options.getTtl().multipliedBy(2));
	}

	/**
	 * Return what happens when the lease is found lost while the method runs, as
	 * declared.
	 * @return the declared policy, {@link OnLeaseLost#DEFAULT} for the configured one
	 * @since 0.1.0
	 */
	public OnLeaseLost onLeaseLost() {
		return this.onLeaseLost;
	}

	/**
	 * Return whether the method is cancelled when its lease is found lost: declared
	 * {@link OnLeaseLost#CANCEL}, or left to a configured {@code CANCEL} that applies to
	 * it (not to a {@code CompletionStage} nor to single-flight, which keep reporting).
	 */
	boolean cancelsOnLeaseLost(OnLeaseLost configured) {
		if (this.onLeaseLost == OnLeaseLost.DEFAULT) {
			return configured == OnLeaseLost.CANCEL && !this.completionStage && this.sharing == null;
		}
		return this.onLeaseLost == OnLeaseLost.CANCEL;
	}

	/**
	 * Return the method that answers instead of a conflict
	 * ({@link dev.lockstarter.annotation.ExclusiveRequest#fallback()}).
	 * @return the fallback method, or {@code null} if a conflict is signalled
	 * @since 0.1.0
	 */
	public @Nullable Method fallbackMethod() {
		return (this.fallback != null) ? this.fallback.method() : null;
	}

	@Nullable FallbackMethod fallback() {
		return this.fallback;
	}

	@Override
	LockOptions resolve(LockOptions defaults) {
		LockOptions options = (this.ttl != null) ? LockOptions.ttl(this.ttl)
			.withWaitTime(defaults.getWaitTime())
			.withRenewal(defaults.isRenew())
			.withMaxHold(defaults.getMaxHold()) : defaults;
		if (this.retries > 0 && this.retryInterval != null) {
			options = options.withRetries(this.retries, this.retryInterval);
		}
		else if (this.waitTime != null) {
			options = options.withWaitTime(this.waitTime);
		}
		if (this.holdAtLeast != null) {
			options = options.withHoldAtLeast(this.holdAtLeast);
		}
		if (this.maxHold != null) {
			options = options.withMaxHold(this.maxHold);
		}
		return options.withName(name());
	}

}
