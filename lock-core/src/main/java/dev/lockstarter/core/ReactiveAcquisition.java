package dev.lockstarter.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.ReactiveLockStore;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import org.springframework.util.Assert;

/**
 * Runs one {@link AcquisitionAttempt} without parking a thread: each try is a
 * {@link ReactiveLockStore} call (one key on a reactive store) or the attempt's blocking
 * try on the blocking scheduler; between tries, the first of a release notification and
 * the {@link WaitSchedule}'s timer. With a {@link ReleaseHandoff}, a release does not
 * wake the waiter to try: it takes the answer of the listener's try, as the
 * {@link BlockingWaiter} does.
 * <p>
 * An acquisition cancelled before its subscriber got the attempt releases the lease it
 * made; a blocking try that has not run by then sends nothing, and one that ends after it
 * releases what it made; a reactive try still in flight is released by owner token in the
 * background ({@link OrphanCleaner}); a listener's grant that no one took is released by
 * the handoff when the wait ends.
 */
final class ReactiveAcquisition {

	private final AcquisitionAttempt attempt;

	private final @Nullable ReactiveLockStore reactiveStore;

	private final Scheduler blockingScheduler;

	private final Mono<Boolean> stopWaiting;

	private final Consumer<Lease> release;

	/** Completed by a release notification: armed before each try. */
	private final AtomicReference<Sinks.Empty<Void>> wakeup = new AtomicReference<>(Sinks.empty());

	private @Nullable ReleaseHandoff handoff;

	private List<ReleaseNotifyingLockStore.Subscription> subscriptions = List.of();

	/** Whether a store call may have granted the lock that no lease covers yet. */
	private volatile boolean inFlight;

	/**
	 * Whether the subscriber cancelled: a blocking try that has not run by then sends
	 * nothing, and one that ends after it releases what it made.
	 */
	private volatile boolean cancelled;

	/**
	 * A lease made and not yet claimed, either by its delivery to the subscriber or by a
	 * release on cancellation: exactly one of the two takes it.
	 */
	private final AtomicReference<@Nullable Lease> unclaimed = new AtomicReference<>();

	/**
	 * Create the run of one attempt.
	 * @param attempt the attempt
	 * @param reactiveStore the store's non-blocking operations, if it has them
	 * @param blockingScheduler where blocking tries run
	 * @param stopWaiting asked after each wake whether to stop waiting, or {@code null}
	 * @param release releases, without failing, a lease that no subscriber will get
	 */
	ReactiveAcquisition(AcquisitionAttempt attempt, @Nullable ReactiveLockStore reactiveStore,
			Scheduler blockingScheduler, @Nullable Mono<Boolean> stopWaiting, Consumer<Lease> release) {
		this.attempt = attempt;
		// The store's reactive acquisition is its plain one: a fenced try, for example,
		// runs on the blocking scheduler
		this.reactiveStore = (attempt.keys().size() == 1 && attempt.triesPlainly()) ? reactiveStore : null;
		this.blockingScheduler = blockingScheduler;
		this.stopWaiting = (stopWaiting != null) ? stopWaiting.defaultIfEmpty(false) : Mono.just(false);
		this.release = release;
	}

	/**
	 * Acquire as the options say: once, a number of retries, or until the wait time is
	 * over; to be called on subscription.
	 * @return the attempt
	 */
	Mono<LockAttempt> acquire() {
		LockOptions options = this.attempt.options();
		if (!WaitSchedule.waits(options)) {
			return tryOnce();
		}
		WaitSchedule schedule = WaitSchedule.start(options, this.attempt.store().notifiesReleases());
		if (!schedule.untilDeadline()) {
			return tryOnce().flatMap((first) -> afterTry(first, schedule, wakeup()));
		}
		ReleaseHandoff handoff = this.attempt.handoff(this::wake);
		this.handoff = handoff;
		this.subscriptions = this.attempt.store()
			.subscribe(this.attempt.storeKeys(), (handoff != null) ? handoff : this::wake);
		// Armed before the try: a release announced while it is in flight wakes the next
		// one at once
		Sinks.Empty<Void> armed = arm();
		return tryWaiting().flatMap((first) -> afterTry(first, schedule, armed)).doFinally((signal) -> close());
	}

	/** After a try that did not acquire: pause, then go on, unless the wait is over. */
	private Mono<LockAttempt> afterTry(LockAttempt last, WaitSchedule schedule, Sinks.Empty<Void> armed) {
		if (last.isAcquired()) {
			return Mono.just(last);
		}
		long pause = schedule.nextPause(this.attempt.holderRemainingTtl());
		if (pause < 0) {
			return Mono.just(last);
		}
		this.attempt.waiting();
		return Mono.firstWithSignal(armed.asMono(), Mono.delay(Duration.ofNanos(pause)).then())
			.then(Mono.defer(() -> afterWake(last, schedule)));
	}

	/**
	 * After a wake: take the listener's answer if one came; else, unless asked to stop,
	 * try again.
	 */
	private Mono<LockAttempt> afterWake(LockAttempt last, WaitSchedule schedule) {
		Sinks.Empty<Void> armed = arm();
		ReleaseHandoff handoff = this.handoff;
		ReleaseHandoff.Answer answer = (handoff != null) ? handoff.take() : null;
		if (answer == null) {
			return stoppedOr(last, () -> tryWaiting().flatMap((next) -> afterTry(next, schedule, armed)));
		}
		LockAttempt taken;
		try {
			this.attempt.take(answer);
			taken = made(this.attempt.outcome());
		}
		catch (LockStoreException ex) {
			return Mono.error(ex);
		}
		// An answer that found the lock held is this wake's try
		return taken.isAcquired() ? Mono.just(taken) : stoppedOr(taken, () -> afterTry(taken, schedule, armed));
	}

	private Mono<LockAttempt> stoppedOr(LockAttempt last, Supplier<Mono<LockAttempt>> next) {
		return this.stopWaiting.flatMap((stop) -> {
			if (stop) {
				this.attempt.stopped();
				return Mono.just(last);
			}
			return next.get();
		});
	}

	/**
	 * Try while waiting: not while the release listener's try runs, whose answer wakes
	 * the waiter instead.
	 */
	private Mono<LockAttempt> tryWaiting() {
		ReleaseHandoff handoff = this.handoff;
		if (handoff == null) {
			return tryOnce();
		}
		if (!handoff.startWaiterTry()) {
			return Mono.fromSupplier(this.attempt::outcome);
		}
		return tryOnce().doOnNext((tried) -> {
			if (!tried.isAcquired()) {
				handoff.endWaiterTry();
			}
		}).doOnError((ex) -> handoff.endWaiterTry());
	}

	private Mono<LockAttempt> tryOnce() {
		ReactiveLockStore reactive = this.reactiveStore;
		return (reactive != null) ? reactiveTry(reactive) : blockingTry();
	}

	private Mono<LockAttempt> reactiveTry(ReactiveLockStore store) {
		String key = this.attempt.keys().get(0);
		return Mono.defer(() -> {
			long sentAt = this.attempt.sending();
			this.inFlight = true;
			Mono<AcquireReply> call = Mono.defer(() -> store.tryAcquireReactive(this.attempt.storeKeys().get(0),
					this.attempt.token(), this.attempt.options().getTtl()));
			// Only the store call's failures are store failures: the outcome made of its
			// answer (a grant confirmed too late) is signalled as it is
			return ReactiveStoreCalls.failing(call, key, "acquire").map((reply) -> {
				this.attempt.answered(reply, sentAt);
				LockAttempt tried = made(this.attempt.outcome());
				this.inFlight = false;
				return tried;
			});
		}).doOnError(LockStoreException.class, (ex) -> orphaned());
	}

	/**
	 * One blocking try, on the blocking scheduler. A try whose subscriber cancelled while
	 * it ran releases what it acquired, on that thread, rather than leave a lease that
	 * nobody would release (and the renewer would keep alive). The lease is made
	 * unclaimed before the try claims the sink, so that a cancellation that comes after
	 * that claim, and may make the sink drop the attempt, finds it and releases it.
	 */
	private Mono<LockAttempt> blockingTry() {
		return Mono.create((sink) -> {
			AtomicReference<@Nullable Boolean> taken = new AtomicReference<>();
			sink.onCancel(() -> {
				if (!taken.compareAndSet(null, false)) {
					releaseUnclaimed();
				}
			});
			this.blockingScheduler.schedule(() -> {
				if (this.cancelled) {
					return;
				}
				LockAttempt tried;
				try {
					this.attempt.tryOnce();
					tried = this.attempt.outcome();
					if (tried.isAcquired() && this.attempt.keys().size() > 1
							&& this.attempt.store().fencingOnDemand() != null) {
						drawFencingTokens(tried.lease());
					}
				}
				catch (RuntimeException ex) {
					sink.error(ex);
					return;
				}
				// The lease is unclaimed before the cancellation is read, and cancelled()
				// sets it before it reads the lease: one of the two releases it
				made(tried);
				if (!this.cancelled && taken.compareAndSet(null, true)) {
					sink.success(tried);
				}
				else {
					releaseUnclaimed();
				}
			});
		});
	}

	/**
	 * Draw the fencing token of every key of a lease on a store that draws them on
	 * demand, here on the blocking scheduler: a reactive caller then reads them without a
	 * store call. A lease whose tokens cannot be drawn is released, and the failure
	 * signalled.
	 */
	private static void drawFencingTokens(Lease lease) {
		try {
			for (String key : lease.keys()) {
				lease.fencingToken(key);
			}
		}
		catch (RuntimeException ex) {
			lease.close();
			throw ex;
		}
	}

	private LockAttempt made(LockAttempt tried) {
		if (tried.isAcquired()) {
			this.unclaimed.set(tried.lease());
		}
		return tried;
	}

	private Sinks.Empty<Void> arm() {
		Sinks.Empty<Void> sink = Sinks.empty();
		this.wakeup.set(sink);
		return sink;
	}

	private void wake() {
		wakeup().tryEmitEmpty();
	}

	private Sinks.Empty<Void> wakeup() {
		Sinks.Empty<Void> sink = this.wakeup.get();
		Assert.state(sink != null, "The wakeup sink is set from construction on");
		return sink;
	}

	/** The attempt reached its subscriber: a lease is the subscriber's now. */
	void delivered() {
		this.unclaimed.set(null);
	}

	/**
	 * Cancelled before the subscriber got the attempt: release a lease already made, and
	 * the lock of a store call still in flight, by token.
	 */
	void cancelled() {
		this.cancelled = true;
		if (!releaseUnclaimed() && this.inFlight) {
			orphaned();
		}
	}

	private boolean releaseUnclaimed() {
		Lease made = this.unclaimed.getAndSet(null);
		if (made == null) {
			return false;
		}
		this.release.accept(made);
		return true;
	}

	private void orphaned() {
		this.inFlight = false;
		this.attempt.orphaned(0);
	}

	private void close() {
		this.subscriptions.forEach(ReleaseNotifyingLockStore.Subscription::close);
		ReleaseHandoff handoff = this.handoff;
		if (handoff != null) {
			handoff.close();
		}
		this.attempt.waitEnded();
	}

}
