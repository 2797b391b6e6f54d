package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.annotation.OnLeaseLost;
import dev.lockstarter.core.Internal;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;

/**
 * The parsed form of one method's {@link dev.lockstarter.annotation.ExclusiveJob}. The
 * time-to-live and maximum hold time are {@code null} when the annotation leaves them to
 * the configured defaults; the minimum hold time is always known. Its lock options never
 * wait for the lock.
 *
 * @since 0.1.0
 */
@Internal
public final class ExclusiveJobAttribute extends LockAttribute {

	private final String name;

	private final Duration holdAtLeast;

	private final @Nullable Duration schedulePeriod;

	private final @Nullable Duration ttl;

	private final @Nullable Duration maxHold;

	private final SkippedResult skippedResult;

	private final OnLeaseLost onLeaseLost;

	ExclusiveJobAttribute(LockKind kind, String name, Duration holdAtLeast, @Nullable Duration schedulePeriod,
			@Nullable Duration ttl, @Nullable Duration maxHold, SkippedResult skippedResult, OnLeaseLost onLeaseLost) {
		super(kind);
		this.name = name;
		this.holdAtLeast = holdAtLeast;
		this.schedulePeriod = schedulePeriod;
		this.ttl = ttl;
		this.maxHold = maxHold;
		this.skippedResult = skippedResult;
		this.onLeaseLost = onLeaseLost;
	}

	/**
	 * Return the job's lock name, which is also its key.
	 * @return the lock name
	 */
	@Override
	public String name() {
		return this.name;
	}

	/**
	 * Return the minimum time the lock stays held after the job took it: the
	 * annotation's, or half the schedule's shortest period.
	 * @return the minimum hold time, zero for none
	 */
	public Duration holdAtLeast() {
		return this.holdAtLeast;
	}

	/**
	 * Return the shortest period between two runs of the method's {@code @Scheduled}
	 * schedule, as found at startup.
	 * @return the period, or {@code null} if the method has no periodic schedule
	 */
	public @Nullable Duration schedulePeriod() {
		return this.schedulePeriod;
	}

	/**
	 * Return whether the method returns a {@link java.util.concurrent.CompletionStage},
	 * whose completion releases the lock.
	 * @return {@code true} for an asynchronous job
	 */
	@Override
	public boolean completionStage() {
		return this.skippedResult == SkippedResult.COMPLETED_STAGE;
	}

	/**
	 * Return what a skipped tick returns for this method's return type.
	 * @return {@code null}, an empty {@code Optional} or a completed stage
	 */
	@Nullable Object skippedResult() {
		return switch (this.skippedResult) {
			case NULL -> null;
			case EMPTY_OPTIONAL -> Optional.empty();
			case COMPLETED_STAGE -> CompletableFuture.completedFuture(null);
		};
	}

	/**
	 * Return what happens when the lease is found lost while the job runs, as declared.
	 * @return the declared policy, {@link OnLeaseLost#DEFAULT} for the configured one
	 * @since 0.1.0
	 */
	public OnLeaseLost onLeaseLost() {
		return this.onLeaseLost;
	}

	/**
	 * Return whether the job is interrupted when its lease is found lost: declared
	 * {@link OnLeaseLost#CANCEL}, or left to a configured {@code CANCEL} that applies to
	 * it (not to an asynchronous job, which keeps reporting).
	 */
	boolean cancelsOnLeaseLost(OnLeaseLost configured) {
		if (this.onLeaseLost == OnLeaseLost.DEFAULT) {
			return configured == OnLeaseLost.CANCEL && !completionStage();
		}
		return this.onLeaseLost == OnLeaseLost.CANCEL;
	}

	@Override
	LockOptions resolve(LockOptions defaults) {
		LockOptions options = (this.ttl != null)
				? LockOptions.ttl(this.ttl).withRenewal(defaults.isRenew()).withMaxHold(defaults.getMaxHold())
				: defaults.withWaitTime(Duration.ZERO);
		if (this.maxHold != null) {
			options = options.withMaxHold(this.maxHold);
		}
		return options.withHoldAtLeast(this.holdAtLeast).withName(this.name);
	}

	/** What a skipped tick returns. */
	enum SkippedResult {

		NULL, EMPTY_OPTIONAL, COMPLETED_STAGE

	}

}
