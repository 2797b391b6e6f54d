package dev.lockstarter.core;

import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import dev.lockstarter.core.FinishedAttempt.Outcome;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.LogSafe;
import dev.lockstarter.store.ReactiveLockStore;
import dev.lockstarter.store.ReactiveResultStoringLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

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
 * {@link dev.lockstarter.store.ReleaseNotifyingLockStore}) or a timer, on the blocking
 * template's schedule (exponential backoff with jitter, never past the holder's remaining
 * time-to-live or the end of the wait). Where the store can
 * {@linkplain dev.lockstarter.store.ReleaseHandoffLockStore acquire from its release
 * listener}, the waiter of one key takes the answer of the listener's acquisition instead
 * of sending its own, as a blocking waiter does.
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

	private final LockEngine engine;

	private final @Nullable ReactiveLockStore reactiveStore;

	private final @Nullable ReactiveLockResults results;

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
		this.engine = template.engine();
		StoreCapabilities store = this.engine.store();
		this.reactiveStore = store.reactive();
		this.blockingScheduler = blockingScheduler;
		ResultStoringLockStore results = store.results();
		this.results = (results != null)
				? new ReactiveTemplateResults(store, this.engine.storeKeys(), results, blockingScheduler) : null;
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
		return Mono.defer(() -> observed(this.engine.attempt(key, options), null));
	}

	@Override
	public Mono<LockAttempt> tryAcquire(String key, LockOptions options, Mono<Boolean> stopWaiting) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		Assert.notNull(options, "'options' must not be null");
		Assert.notNull(stopWaiting, "'stopWaiting' must not be null");
		return Mono.defer(() -> observed(this.engine.attempt(key, options), stopWaiting));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Each try is the blocking template's try on every key, on the blocking scheduler;
	 * the waits between tries park no thread. The acquisition is one {@code lock.acquire}
	 * observation, as a blocking one is.
	 */
	@Override
	public Mono<LockAttempt> tryAcquire(Collection<String> keys, LockOptions options) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		Assert.notNull(options, "'options' must not be null");
		return Mono.defer(() -> observed(this.engine.attempt(keys, options), null));
	}

	/**
	 * Acquire a lock for an owner outside this JVM, as
	 * {@link DetachedLockOperations#tryAcquireDetached} does, but waiting without a
	 * thread: between tries the attempt parks nothing, and a release announced by the
	 * store wakes it.
	 * @param key the key
	 * @param options the options; renewal, a minimum hold and a maximum hold do not apply
	 * and must not be set
	 * @return a {@code Mono} of the attempt, whose lease is a {@link DetachedLease} when
	 * acquired; a {@link LockStoreException} error if the store fails
	 */
	public Mono<LockAttempt> tryAcquireDetached(String key, LockOptions options) {
		return Mono.defer(() -> observed(this.engine.detachedAttempt(key, options), null));
	}

	/**
	 * One acquisition as one {@code lock.acquire} observation and one
	 * {@link LockListener#acquisitionFinished}, like the blocking template's.
	 */
	private Mono<LockAttempt> observed(AcquisitionAttempt attempt, @Nullable Mono<Boolean> stopWaiting) {
		ObservedAcquisition observed = this.engine.events().startAcquisition(attempt.name(), attempt.description());
		attempt.firstSentAt(observed.startedAt());
		ReactiveAcquisition acquisition = new ReactiveAcquisition(attempt, this.reactiveStore, this.blockingScheduler,
				stopWaiting, (lease) -> releaseQuietly(lease).subscribe());
		return acquisition.acquire().doOnNext((result) -> {
			acquisition.delivered();
			observed.finish(attempt.outcomeOf(result), attempt.waited());
		}).doOnError((ex) -> observed.fail(ex, attempt.waited())).doOnCancel(() -> {
			acquisition.cancelled();
			observed.finish(Outcome.INTERRUPTED, attempt.waited());
		});
	}

	@Override
	public Mono<Boolean> release(Lease lease) {
		Assert.notNull(lease, "'lease' must not be null");
		ReactiveLockStore reactive = this.reactiveStore;
		// A lease on the store's mutex; one on a shared lock is released by the blocking
		// call
		StoreLease part = (reactive != null) ? LockCapabilities.singleKey(lease) : null;
		if (reactive != null && part != null && part.store() == reactive) {
			return Mono.defer(() -> releaseReactive(part, reactive));
		}
		return Mono.fromCallable(lease::release).subscribeOn(this.blockingScheduler);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Present when the store is a {@link ResultStoringLockStore}: read and written
	 * without blocking on a {@link ReactiveResultStoringLockStore}, on the blocking
	 * scheduler on any other.
	 */
	@Override
	public Optional<ReactiveLockResults> results() {
		return Optional.ofNullable(this.results);
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
			if (lease.loseIfPastDeadlineKeepingLock()) {
				// Lost at its local deadline, which no timer has come to yet: its lock
				// goes to the next owner, and the release answers that it was not held
				return ReactiveStoreCalls
					.failing(store.releaseReactive(lease.storeKey(), lease.token()), lease.key(), "release")
					.onErrorResume(LockStoreException.class, (ex) -> Mono.empty())
					.then(Mono.just(false));
			}
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
		return ReactiveStoreCalls.failing(call.defaultIfEmpty(false), lease.key(), "release").doOnNext((owned) -> {
			if (ended.compareAndSet(false, true)) {
				lease.endRelease(owned, true);
			}
		}).doOnError((ex) -> {
			if (ended.compareAndSet(false, true)) {
				lease.endRelease(false, false);
			}
		}).doOnCancel(() -> {
			if (ended.compareAndSet(false, true)) {
				lease.endRelease(false, false);
			}
		});
	}

}
