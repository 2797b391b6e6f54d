package dev.lockstarter.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import dev.lockstarter.core.FinishedAttempt.Outcome;
import dev.lockstarter.observation.LockAcquireContext;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.FencingOnDemandLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.LogSafe;
import dev.lockstarter.store.ReactiveLockStore;
import dev.lockstarter.store.ReactiveResultStoringLockStore;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;
import org.springframework.util.backoff.BackOffExecution;

/**
 * Default {@link ReactiveLockOperations}, over a {@link LockTemplate}: the same store,
 * key prefix, owner tokens, renewal, cleanup of failed acquisitions, listeners, held-lock
 * registry and hold-time estimates, so a reactive and a blocking caller of one key
 * exclude each other, and a reactive lease is renewed, listed and reported like any
 * other.
 * <p>
 * <b>Store calls.</b> With a {@link ReactiveLockStore}, single-key acquisitions and
 * releases are the store's non-blocking operations, and so are the reads and writes of
 * kept results with a {@link ReactiveResultStoringLockStore}. With any other store, and
 * for locks on several keys, each store call runs on {@link Schedulers#boundedElastic()},
 * never on the subscriber's thread. Leases are renewed by the template's shared renewal
 * thread, whatever the store.
 * <p>
 * <b>Waiting</b> parks no thread: each attempt that finds the lock held is followed by
 * the first of a release notification of one of its keys (from a
 * {@link ReleaseNotifyingLockStore}) or a timer, set as the blocking template's polls are
 * (exponential backoff with jitter, never past the holder's remaining time-to-live or the
 * end of the wait).
 * <p>
 * <b>Cancellation.</b> An acquisition cancelled while its store call is in flight may
 * still be granted by the store: its lock is released by owner token in the background,
 * as after a failed store call. A lease that is emitted belongs to the subscriber, which
 * releases it with {@link #release} ({@link #execute} does so on completion, error and
 * cancellation).
 *
 * @since 0.1.0
 */
public class ReactiveLockTemplate implements ReactiveLockOperations {

	private static final Log logger = LogFactory.getLog(ReactiveLockTemplate.class);

	private final LockTemplate template;

	private final LockStore store;

	private final @Nullable ReactiveLockStore reactiveStore;

	private final Scheduler blockingScheduler;

	/**
	 * Create a reactive template on the store and settings of a blocking one.
	 * @param template the blocking template
	 */
	public ReactiveLockTemplate(LockTemplate template) {
		this(template, Schedulers.boundedElastic());
	}

	/**
	 * Create a reactive template on the store and settings of a blocking one.
	 * @param template the blocking template
	 * @param blockingScheduler the scheduler of the calls to a store that is not a
	 * {@link ReactiveLockStore}
	 */
	public ReactiveLockTemplate(LockTemplate template, Scheduler blockingScheduler) {
		Assert.notNull(template, "'template' must not be null");
		Assert.notNull(blockingScheduler, "'blockingScheduler' must not be null");
		this.template = template;
		this.store = template.store();
		this.reactiveStore = (this.store instanceof ReactiveLockStore reactive) ? reactive : null;
		this.blockingScheduler = blockingScheduler;
	}

	/**
	 * Return the blocking template this one works with.
	 * @return the template
	 */
	public LockTemplate getTemplate() {
		return this.template;
	}

	@Override
	public Mono<LockAttempt> tryAcquire(String key, LockOptions options) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		Assert.notNull(options, "'options' must not be null");
		return Mono.defer(() -> observed(new SingleKeyAttempt(key, options), null));
	}

	@Override
	public Mono<LockAttempt> tryAcquire(String key, LockOptions options, Mono<Boolean> stopWaiting) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		Assert.notNull(options, "'options' must not be null");
		Assert.notNull(stopWaiting, "'stopWaiting' must not be null");
		return Mono.defer(() -> observed(new SingleKeyAttempt(key, options), stopWaiting));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Each attempt is the blocking template's attempt on every key without waiting
	 * ({@link LockTemplate#tryAcquire(Collection, LockOptions)}), on the blocking
	 * scheduler; the waits between attempts park no thread.
	 */
	@Override
	public Mono<LockAttempt> tryAcquire(Collection<String> keys, LockOptions options) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		Assert.notNull(options, "'options' must not be null");
		SortedMap<String, String> byStoreKey = new TreeMap<>();
		for (String key : keys) {
			Assert.isTrue(StringUtils.hasText(key), "'keys' must not contain a blank key");
			byStoreKey.putIfAbsent(this.template.storeKey(key), key);
		}
		if (byStoreKey.size() == 1) {
			return tryAcquire(byStoreKey.values().iterator().next(), options);
		}
		List<String> sortedKeys = List.copyOf(byStoreKey.values());
		List<String> storeKeys = List.copyOf(byStoreKey.keySet());
		LockOptions once = options.withWaitTime(Duration.ZERO);
		return Mono.defer(() -> waitFor(() -> blockingAttempt(sortedKeys, once), storeKeys, options, null));
	}

	/**
	 * One blocking attempt on several keys, on the blocking scheduler. An attempt whose
	 * subscriber cancelled while it ran releases what it acquired, on that thread, rather
	 * than leave a lease that nobody would release (and the renewer would keep alive).
	 */
	private Mono<LockAttempt> blockingAttempt(List<String> keys, LockOptions once) {
		return Mono.<LockAttempt>create((sink) -> {
			AtomicReference<@Nullable Boolean> taken = new AtomicReference<>();
			sink.onCancel(() -> taken.compareAndSet(null, false));
			this.blockingScheduler.schedule(() -> {
				LockAttempt attempt;
				try {
					attempt = this.template.tryAcquire(keys, once);
					if (attempt.isAcquired() && this.template.store() instanceof FencingOnDemandLockStore) {
						drawFencingTokens(attempt.lease());
					}
				}
				catch (RuntimeException ex) {
					sink.error(ex);
					return;
				}
				if (taken.compareAndSet(null, true)) {
					sink.success(attempt);
				}
				else if (attempt.isAcquired()) {
					attempt.lease().close();
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

	@Override
	public Mono<Boolean> release(Lease lease) {
		Assert.notNull(lease, "'lease' must not be null");
		if (lease instanceof StoreLease part && this.reactiveStore != null) {
			return Mono.defer(() -> releaseReactive(part, this.reactiveStore));
		}
		return Mono.fromCallable(lease::release).subscribeOn(this.blockingScheduler);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A {@link ReactiveResultStoringLockStore} is written without blocking; any other
	 * store that keeps results through {@link Lease#putResult} on the blocking scheduler.
	 */
	@Override
	public Mono<Boolean> putResult(Lease lease, byte[] result, Duration ttl) {
		Assert.notNull(lease, "'lease' must not be null");
		Assert.notNull(result, "'result' must not be null");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		if (lease instanceof StoreLease part && this.store instanceof ReactiveResultStoringLockStore results) {
			return Mono.defer(() -> (part.state() != StoreLease.State.HELD) ? Mono.just(false)
					: results.putResultReactive(part.storeKey(), part.token(), result, ttl)
						.defaultIfEmpty(false)
						.onErrorMap((ex) -> !(ex instanceof LockStoreException),
								(ex) -> storeFailure(part.key(), "store the result of", ex)));
		}
		return Mono.fromCallable(() -> lease.putResult(result, ttl)).subscribeOn(this.blockingScheduler);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A {@link ReactiveResultStoringLockStore} is read without blocking; any other store
	 * that keeps results on the blocking scheduler.
	 */
	@Override
	public Mono<byte[]> findResult(String key) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		if (!(this.store instanceof ResultStoringLockStore blocking)) {
			return Mono.error(new UnsupportedOperationException(
					"Lock store " + this.store.getClass().getName() + " keeps no results"));
		}
		String storeKey = this.template.storeKey(key);
		if (blocking instanceof ReactiveResultStoringLockStore results) {
			return Mono.defer(() -> results.getResultReactive(storeKey))
				.onErrorMap((ex) -> !(ex instanceof LockStoreException),
						(ex) -> storeFailure(key, "read the result of", ex));
		}
		return Mono.fromCallable(() -> blocking.getResult(storeKey)).subscribeOn(this.blockingScheduler);
	}

	@Override
	public <T> Flux<T> execute(String key, LockOptions options, Function<Lease, ? extends Publisher<T>> callback) {
		Assert.notNull(callback, "'callback' must not be null");
		return guarded(acquire(key, options), callback);
	}

	@Override
	public <T> Flux<T> execute(Collection<String> keys, LockOptions options,
			Function<Lease, ? extends Publisher<T>> callback) {
		Assert.notNull(callback, "'callback' must not be null");
		return guarded(acquire(keys, options), callback);
	}

	private <T> Flux<T> guarded(Mono<Lease> lease, Function<Lease, ? extends Publisher<T>> callback) {
		return Flux.usingWhen(lease, callback, this::releaseQuietly, (held, failure) -> releaseQuietly(held),
				this::releaseQuietly);
	}

	/**
	 * Release a lease, logging a failure instead of signalling it: the lock then expires
	 * with its time-to-live, and the guarded work's outcome stands.
	 * @param lease the lease
	 * @return a {@code Mono} that completes when the release is done
	 */
	Mono<Void> releaseQuietly(Lease lease) {
		return release(lease).onErrorResume(LockStoreException.class, (ex) -> {
			logger.warn("Failed to release lock '" + LogSafe.key(lease.key())
					+ "'; it expires at the end of its time-to-live", ex);
			return Mono.empty();
		}).then();
	}

	/**
	 * Release one key's lease without blocking: the move from held to released is made
	 * under the lease's guard when it is free, as the blocking release does; if a renewal
	 * holds it now, the whole release runs on the blocking scheduler instead.
	 */
	private Mono<Boolean> releaseReactive(StoreLease lease, ReactiveLockStore store) {
		if (!lease.guard.tryLock()) {
			return Mono.fromCallable(lease::release).subscribeOn(this.blockingScheduler);
		}
		long minimumHoldLeft;
		try {
			if (!lease.beginRelease()) {
				return Mono.just(false);
			}
			minimumHoldLeft = lease.minimumHoldLeft();
		}
		finally {
			lease.guard.unlock();
		}
		Mono<Boolean> call = (minimumHoldLeft > 0)
				? store.extendReactive(lease.storeKey(), lease.token(), Duration.ofNanos(minimumHoldLeft))
				: store.releaseReactive(lease.storeKey(), lease.token());
		AtomicBoolean ended = new AtomicBoolean();
		return call.defaultIfEmpty(false)
			.onErrorMap((ex) -> !(ex instanceof LockStoreException), (ex) -> storeFailure(lease.key(), "release", ex))
			.doOnNext((owned) -> {
				if (ended.compareAndSet(false, true)) {
					lease.endRelease(owned, true);
				}
			})
			.doOnError((ex) -> {
				if (ended.compareAndSet(false, true)) {
					lease.endRelease(false, false);
				}
			})
			.doOnCancel(() -> {
				if (ended.compareAndSet(false, true)) {
					lease.endRelease(false, false);
				}
			});
	}

	/**
	 * One acquisition as one {@code lock.acquire} observation and one
	 * {@link LockListener#acquisitionFinished}, like the blocking template's.
	 */
	private Mono<LockAttempt> observed(SingleKeyAttempt attempt, @Nullable Mono<Boolean> stopWaiting) {
		String name = LockTemplate.nameOf(attempt.options);
		Observation observation = this.template.startAcquireObservation(name);
		long startedAt = System.nanoTime();
		AtomicReference<Outcome> outcome = new AtomicReference<>(Outcome.STORE_ERROR);
		AtomicBoolean finished = new AtomicBoolean();
		Runnable finish = () -> {
			if (finished.compareAndSet(false, true)) {
				if (observation.getContext() instanceof LockAcquireContext context) {
					context.setOutcome(outcome.get().tagValue());
				}
				observation.stop();
				this.template.acquisitionFinished(new FinishedAttempt(name, attempt.key, outcome.get(),
						Duration.ofNanos(System.nanoTime() - startedAt), attempt.waited));
			}
		};
		return waitFor(attempt, List.of(attempt.storeKey), attempt.options, stopWaiting).doOnNext((result) -> {
			outcome.set(result.isAcquired() ? Outcome.ACQUIRED
					: attempt.stopped ? Outcome.STOPPED : (attempt.waited ? Outcome.WAIT_TIMEOUT : Outcome.CONFLICT));
			attempt.delivered(result);
			finish.run();
		}).doOnError((ex) -> {
			observation.error(ex);
			finish.run();
		}).doOnCancel(() -> {
			outcome.set(Outcome.INTERRUPTED);
			attempt.cancelled();
			finish.run();
		});
	}

	/**
	 * Attempts, one after the other, as the options say: once; a number of retries on a
	 * fixed schedule; or until the wait time is over, woken by release notifications or
	 * timers. After each wake, {@code stopWaiting} (if any) may end the wait without the
	 * lock.
	 */
	private Mono<LockAttempt> waitFor(AttemptSource once, List<String> storeKeys, LockOptions options,
			@Nullable Mono<Boolean> stopWaiting) {
		Mono<Boolean> stop = (stopWaiting != null) ? stopWaiting : Mono.just(false);
		if (options.getRetries() > 0) {
			return retry(once, options, options.getRetries(), stop);
		}
		if (options.getWaitTime().isZero()) {
			return once.next();
		}
		long deadline = System.nanoTime() + options.getWaitTime().toNanos();
		Wakeups wakeups = new Wakeups();
		List<ReleaseNotifyingLockStore.Subscription> subscriptions = new ArrayList<>();
		if (this.store instanceof ReleaseNotifyingLockStore notifying) {
			for (String storeKey : storeKeys) {
				subscriptions.add(notifying.subscribe(storeKey, wakeups::wake));
			}
		}
		BackOffExecution polls = (!subscriptions.isEmpty() ? LockTemplate.NOTIFIED_POLLS : LockTemplate.POLLED_POLLS)
			.start();
		return await(once, wakeups, polls, deadline, stop)
			.doFinally((signal) -> subscriptions.forEach(ReleaseNotifyingLockStore.Subscription::close));
	}

	private Mono<LockAttempt> retry(AttemptSource once, LockOptions options, int retriesLeft, Mono<Boolean> stop) {
		return once.next().flatMap((attempt) -> {
			if (attempt.isAcquired() || retriesLeft == 0) {
				return Mono.just(attempt);
			}
			once.waiting();
			return Mono.delay(options.getRetryInterval())
				.then(stoppedOr(once, attempt, stop, () -> retry(once, options, retriesLeft - 1, stop)));
		});
	}

	/**
	 * After a wake: the unacquired attempt when {@code stop} says so, else the next
	 * attempts.
	 */
	private static Mono<LockAttempt> stoppedOr(AttemptSource once, LockAttempt attempt, Mono<Boolean> stop,
			Supplier<Mono<LockAttempt>> next) {
		return stop.defaultIfEmpty(false).flatMap((stopped) -> {
			if (stopped) {
				once.stopped();
				return Mono.just(attempt);
			}
			return next.get();
		});
	}

	private Mono<LockAttempt> await(AttemptSource once, Wakeups wakeups, BackOffExecution polls, long deadline,
			Mono<Boolean> stop) {
		// Armed before the attempt: a release announced while it is in flight wakes the
		// next one at once
		Sinks.Empty<Void> wakeup = wakeups.arm();
		return once.next().flatMap((attempt) -> {
			long remaining = deadline - System.nanoTime();
			if (attempt.isAcquired() || remaining <= 0) {
				return Mono.just(attempt);
			}
			once.waiting();
			long untilExpiry = attempt.holderRemainingTtl().toNanos() + TimeUnit.MILLISECONDS.toNanos(1);
			long poll = TimeUnit.MILLISECONDS.toNanos(polls.nextBackOff());
			Duration pause = Duration.ofNanos(Math.min(remaining, Math.min(untilExpiry, poll)));
			return Mono.firstWithSignal(wakeup.asMono(), Mono.delay(pause).then())
				.then(stoppedOr(once, attempt, stop, () -> await(once, wakeups, polls, deadline, stop)));
		});
	}

	private static LockStoreException storeFailure(String key, String operation, Throwable failure) {
		return new LockStoreException(key, "Lock store failed to " + operation + " lock '" + key + "'", failure);
	}

	/** The source of the attempts of one acquisition. */
	private interface AttemptSource {

		Mono<LockAttempt> next();

		/** The acquisition is going to wait for another attempt. */
		default void waiting() {
		}

		/** The acquisition stopped waiting, without the lock, when asked to. */
		default void stopped() {
		}

	}

	/**
	 * The release notifications of one waiter: each announcement completes the sink armed
	 * before the latest attempt.
	 */
	private static final class Wakeups {

		private final AtomicReference<Sinks.Empty<Void>> current = new AtomicReference<>(Sinks.empty());

		Sinks.Empty<Void> arm() {
			Sinks.Empty<Void> sink = Sinks.empty();
			this.current.set(sink);
			return sink;
		}

		void wake() {
			this.current.get().tryEmitEmpty();
		}

	}

	/**
	 * One acquisition of one key: one owner token for all of its attempts.
	 */
	private final class SingleKeyAttempt implements AttemptSource {

		private final String key;

		private final String storeKey;

		private final String token = OwnerTokens.next();

		private final LockOptions options;

		private volatile boolean waited;

		private volatile boolean stopped;

		/** The {@link System#nanoTime()} at which the latest attempt was sent. */
		private volatile long sentAt;

		/** Whether a store call may have granted the lock that no lease covers yet. */
		private volatile boolean inFlight;

		private final AtomicReference<@Nullable Lease> lease = new AtomicReference<>();

		private final AtomicBoolean delivered = new AtomicBoolean();

		SingleKeyAttempt(String key, LockOptions options) {
			this.key = key;
			this.storeKey = ReactiveLockTemplate.this.template.storeKey(key);
			this.options = options;
		}

		@Override
		public Mono<LockAttempt> next() {
			return Mono.defer(() -> {
				this.sentAt = System.nanoTime();
				this.inFlight = true;
				return storeCall();
			})
				.onErrorMap((ex) -> !(ex instanceof LockStoreException), (ex) -> storeFailure(this.key, "acquire", ex))
				.doOnError(LockStoreException.class, (ex) -> orphaned())
				.map((result) -> {
					LockAttempt attempt = ReactiveLockTemplate.this.template.outcome(this.key, this.storeKey,
							this.token, result, this.options, this.sentAt);
					if (attempt.isAcquired()) {
						this.lease.set(attempt.lease());
					}
					this.inFlight = false;
					return attempt;
				});
		}

		private Mono<AcquireReply> storeCall() {
			ReactiveLockStore reactive = ReactiveLockTemplate.this.reactiveStore;
			if (reactive != null) {
				return reactive.tryAcquireReactive(this.storeKey, this.token, this.options.getTtl());
			}
			return Mono.fromCallable(
					() -> ReactiveLockTemplate.this.store.tryAcquire(this.storeKey, this.token, this.options.getTtl()))
				.subscribeOn(ReactiveLockTemplate.this.blockingScheduler);
		}

		@Override
		public void waiting() {
			this.waited = true;
		}

		@Override
		public void stopped() {
			this.stopped = true;
		}

		/** The attempt reached its subscriber: a lease is the subscriber's now. */
		void delivered(LockAttempt attempt) {
			this.delivered.set(true);
		}

		/**
		 * Cancelled before the subscriber got the attempt: release a lease already made,
		 * and the lock of a store call still in flight, by token.
		 */
		void cancelled() {
			if (this.delivered.get()) {
				return;
			}
			Lease made = this.lease.get();
			if (made != null) {
				releaseQuietly(made).subscribe();
			}
			else if (this.inFlight) {
				orphaned();
			}
		}

		private void orphaned() {
			this.inFlight = false;
			ReactiveLockTemplate.this.template.cleaner()
				.cleanUp(this.key, this.storeKey, this.token, this.sentAt, this.options.getTtl());
		}

	}

}
