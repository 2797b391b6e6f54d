package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.FinishedAttempt.Outcome;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockListener;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.core.LockWaitInterruptedException;
import dev.lockstarter.core.ReactiveLockOperations;
import dev.lockstarter.core.ReactiveLockTemplate;
import dev.lockstarter.core.LockAttemptWithResult;
import dev.lockstarter.observation.DefaultExclusiveRequestObservationConvention;
import dev.lockstarter.observation.ExclusiveRequestObservationContext;
import dev.lockstarter.observation.ExclusiveRequestObservationConvention;
import dev.lockstarter.observation.LockObservationDocumentation;
import dev.lockstarter.result.ResultCodec;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.LogSafe;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.Assert;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a method annotated with {@link dev.lockstarter.annotation.ExclusiveRequest} while
 * holding its lock.
 * <ul>
 * <li>Not acquired (after waiting, if the method waits): the method does not run, nothing
 * is released, and a {@link LockConflictException} is thrown.</li>
 * <li>The method throws: the lock is released and the exception propagates
 * unchanged.</li>
 * <li>The method returns: the lock is released; for a {@link CompletionStage}, when the
 * stage completes.</li>
 * <li>The key is already held by an enclosing annotated call on this thread: the method
 * runs under that lock, without locking again. With
 * {@link dev.lockstarter.annotation.ExclusiveRequest#eachKey() eachKey}, only the keys
 * that the enclosing calls do not hold are locked.</li>
 * <li>With {@code eachKey}, the method's keys are locked together, all or none, through
 * {@link LockOperations#tryAcquire(java.util.Collection, LockOptions)}; a conflict names
 * the lock's name, not the key that was held.</li>
 * <li>The method returns a reactive type ({@code Mono}, {@code Flux} or another type of
 * the {@link ReactiveAdapterRegistry}): nothing happens until the result is subscribed
 * to. Then the key is resolved and the lock acquired without blocking (through a
 * {@link ReactiveLockTemplate} on the {@link LockTemplate}), the method is invoked once
 * the lock is held, and the lock is released when its publisher completes, fails or is
 * cancelled (a client that disconnects cancels). A conflict, an invalid key and a store
 * failure are error signals, and the method is not invoked. A reactive call is not nested
 * in an enclosing call's lock: the same key conflicts.</li>
 * <li>Single-flight ({@link dev.lockstarter.annotation.OnConflict#SHARE_RESULT}): the
 * holder keeps its outcome (value, completion or failure) next to the lock, through the
 * {@link ResultCodec}, before it releases; a caller that waited for it returns that
 * outcome without running the method, or takes over when the holder left none. A method
 * that returns a single-value reactive type ({@code Mono}) shares the value it emits (an
 * empty completion as such) the same way, without blocking a thread: the result is read
 * and kept through {@link ReactiveLockOperations#findResult} and
 * {@link ReactiveLockOperations#putResult}, and a holder that is cancelled keeps nothing
 * and releases. A stream of several values ({@code Flux}) is rejected at startup.</li>
 * </ul>
 * A failure to release never replaces the method's outcome: it is logged and the lock
 * expires at the end of its time-to-live.
 * <p>
 * When the store fails to answer an acquisition, the {@link StoreFailurePolicy} decides:
 * by default the method does not run and the {@link LockStoreException} propagates
 * ({@link StoreFailurePolicy#FAIL_CLOSED}); with {@link StoreFailurePolicy#FAIL_OPEN} it
 * runs without a lock, and a WARN (at most one a second, counting the runs in between)
 * says so.
 * <p>
 * Each call that is not nested in a call holding the same lock is a {@code lock.request}
 * observation, whose scope is open while the method runs, so that the method's own
 * observations nest inside it.
 *
 * @since 0.1.0
 */
public class ExclusiveRequestInterceptor implements MethodInterceptor {

	/**
	 * The time-to-live of shared results when neither the method nor the application sets
	 * one.
	 */
	public static final Duration DEFAULT_RESULT_TTL = Duration.ofSeconds(10);

	private static final Log logger = LogFactory.getLog(ExclusiveRequestInterceptor.class);

	private static final long FAIL_OPEN_LOG_INTERVAL = TimeUnit.SECONDS.toNanos(1);

	/**
	 * The Reactor context key of the current observation, as Micrometer's
	 * {@code ObservationThreadLocalAccessor.KEY}, which is not referenced so that
	 * context-propagation stays optional.
	 */
	static final String OBSERVATION_CONTEXT_KEY = "micrometer.observation";

	private final ExclusiveRequestAttributeSource attributeSource;

	private final Supplier<LockOperations> locks;

	private final Supplier<LockOptions> defaults;

	private Supplier<@Nullable ResultCodec> resultCodec = () -> null;

	private Supplier<Duration> defaultResultTtl = () -> DEFAULT_RESULT_TTL;

	private volatile StoreFailurePolicy storeFailurePolicy = StoreFailurePolicy.FAIL_CLOSED;

	private final AtomicLong failOpenRuns = new AtomicLong();

	private Supplier<ObservationRegistry> observationRegistry = () -> ObservationRegistry.NOOP;

	private Supplier<@Nullable ExclusiveRequestObservationConvention> observationConvention = () -> null;

	private Supplier<@Nullable LockListener> listener = () -> null;

	/** Reads of kept results shared by the followers that one release wakes. */
	private final KeptResultReads keptResultReads = new KeptResultReads();

	private final AtomicLong failOpenLoggedAt = new AtomicLong(System.nanoTime() - FAIL_OPEN_LOG_INTERVAL);

	/** Created on the first call of a reactive method: only then is Reactor needed. */
	private final SingletonSupplier<ReactiveLockingHandler> reactiveHandler = SingletonSupplier
		.of(() -> new ReactiveLockingHandler());

	/**
	 * Create a new interceptor. The suppliers are called once, on first use, so that the
	 * interceptor can be created before the lock store.
	 * @param attributeSource the source of parsed declarations
	 * @param locks the lock operations
	 * @param defaults the options of locks whose declaration sets none: time-to-live,
	 * wait time, renewal and maximum hold time
	 */
	public ExclusiveRequestInterceptor(ExclusiveRequestAttributeSource attributeSource, Supplier<LockOperations> locks,
			Supplier<LockOptions> defaults) {
		Assert.notNull(attributeSource, "'attributeSource' must not be null");
		Assert.notNull(locks, "'locks' must not be null");
		Assert.notNull(defaults, "'defaults' must not be null");
		this.attributeSource = attributeSource;
		this.locks = SingletonSupplier.of(locks);
		this.defaults = SingletonSupplier.of(defaults);
	}

	/**
	 * Set the codec of results shared by single-flight methods
	 * ({@link dev.lockstarter.annotation.OnConflict#SHARE_RESULT}). The supplier is
	 * called once, on first use.
	 * @param resultCodec the supplier of the codec
	 */
	public void setResultCodec(Supplier<@Nullable ResultCodec> resultCodec) {
		Assert.notNull(resultCodec, "'resultCodec' must not be null");
		this.resultCodec = once(resultCodec);
	}

	/**
	 * Set how long shared results are kept when the method sets no {@code resultTtl},
	 * {@link #DEFAULT_RESULT_TTL} by default. The supplier is called once, on first use.
	 * @param defaultResultTtl the supplier of the default result time-to-live
	 */
	public void setDefaultResultTtl(Supplier<Duration> defaultResultTtl) {
		Assert.notNull(defaultResultTtl, "'defaultResultTtl' must not be null");
		this.defaultResultTtl = SingletonSupplier.of(defaultResultTtl);
	}

	/**
	 * Set what a method does when the store fails to answer its acquisition. Default:
	 * {@link StoreFailurePolicy#FAIL_CLOSED}.
	 * @param storeFailurePolicy the policy
	 */
	public void setStoreFailurePolicy(StoreFailurePolicy storeFailurePolicy) {
		Assert.notNull(storeFailurePolicy, "'storeFailurePolicy' must not be null");
		this.storeFailurePolicy = storeFailurePolicy;
	}

	/**
	 * Set the registry of the {@code lock.request} observations; none by default. The
	 * supplier is called once, on first use.
	 * @param observationRegistry the supplier of the registry
	 */
	public void setObservationRegistry(Supplier<ObservationRegistry> observationRegistry) {
		Assert.notNull(observationRegistry, "'observationRegistry' must not be null");
		this.observationRegistry = SingletonSupplier.of(observationRegistry);
	}

	/**
	 * Set the convention of the {@code lock.request} observations, replacing
	 * {@link DefaultExclusiveRequestObservationConvention}. The supplier is called once,
	 * on first use.
	 * @param observationConvention the supplier of the convention, which may supply
	 * {@code null} for the default
	 */
	public void setObservationConvention(
			Supplier<@Nullable ExclusiveRequestObservationConvention> observationConvention) {
		Assert.notNull(observationConvention, "'observationConvention' must not be null");
		this.observationConvention = once(observationConvention);
	}

	/**
	 * Set the listener told when a single-flight caller receives a shared result. The
	 * supplier is called once, on first use.
	 * @param listener the supplier of the listener, which may supply {@code null} for
	 * none
	 */
	public void setListener(Supplier<@Nullable LockListener> listener) {
		Assert.notNull(listener, "'listener' must not be null");
		this.listener = once(listener);
	}

	/**
	 * Resolve an optional collaborator once, its absence included: a
	 * {@link SingletonSupplier} that answers {@code null} asks again on every call, under
	 * a lock, which callers running at once (single-flight followers answered together,
	 * on event loops too) would wait on.
	 */
	private static <T> Supplier<@Nullable T> once(Supplier<@Nullable T> supplier) {
		SingletonSupplier<Optional<T>> resolved = SingletonSupplier.of(() -> Optional.ofNullable(supplier.get()));
		return () -> resolved.obtain().orElse(null);
	}

	/**
	 * Return what a method does when the store fails to answer its acquisition.
	 * @return the policy
	 */
	public StoreFailurePolicy getStoreFailurePolicy() {
		return this.storeFailurePolicy;
	}

	/**
	 * Resolve the suppliers now rather than on the first call (single-flight followers
	 * answered together would otherwise wait for the first lookup of the listener, on
	 * event-loop threads too), and, with Reactor present, create the handler of reactive
	 * methods. A failure is left for the first call to report.
	 */
	void prepare() {
		List<Supplier<?>> suppliers = new ArrayList<>(List.of(this.locks, this.defaults, this.observationRegistry,
				this.observationConvention, this.listener, this.resultCodec, this.defaultResultTtl));
		if (ExclusiveRequestAttributeSource.REACTOR_PRESENT) {
			suppliers.add(this.reactiveHandler);
		}
		for (Supplier<?> supplier : suppliers) {
			try {
				supplier.get();
			}
			catch (RuntimeException ex) {
				if (logger.isDebugEnabled()) {
					logger.debug("Could not prepare the @ExclusiveRequest interceptor ahead of its first call", ex);
				}
			}
		}
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		ExclusiveRequestAttribute attribute = this.attributeSource.getAttribute(invocation.getMethod(), targetClass);
		if (attribute == null) {
			return invocation.proceed();
		}
		ReactiveAdapter reactiveAdapter = attribute.reactiveAdapter();
		if (reactiveAdapter != null) {
			return this.reactiveHandler.get().invoke(invocation, attribute, reactiveAdapter);
		}
		List<String> keys;
		String key;
		if (attribute.eachKey()) {
			List<String> each = attribute.keyResolver().resolveEach(invocation.getArguments());
			keys = ExclusiveRequestContext.notHeld(each);
			if (keys.isEmpty()) {
				return proceedWithin(invocation, ExclusiveRequestContext.held(each.get(0)));
			}
			key = keys.get(0);
		}
		else {
			key = attribute.keyResolver().resolve(invocation.getArguments());
			Lease enclosing = ExclusiveRequestContext.held(key);
			if (enclosing != null) {
				return proceedWithin(invocation, enclosing);
			}
			keys = List.of(key);
		}
		ObservationRegistry registry = this.observationRegistry.get();
		Observation observation = LockObservationDocumentation.EXCLUSIVE_REQUEST
			.observation(this.observationConvention.get(), DefaultExclusiveRequestObservationConvention.INSTANCE,
					() -> new ExclusiveRequestObservationContext(attribute.name(), storeName()), registry)
			.start();
		Object result;
		// A scope of a no-op registry changes nothing: it is not opened
		try (Observation.Scope scope = registry.isNoop() ? null : observation.openScope()) {
			ResultSharing sharing = attribute.resultSharing();
			result = (sharing != null) ? invokeSharing(invocation, attribute, sharing, key, observation)
					: invokeExclusive(invocation, attribute, keys, observation);
		}
		catch (Throwable ex) {
			outcomeIfUnknown(observation,
					((ex instanceof LockWaitInterruptedException) ? Outcome.INTERRUPTED : Outcome.STORE_ERROR)
						.tagValue());
			observation.error(ex);
			observation.stop();
			throw ex;
		}
		if (attribute.completionStage() && result instanceof CompletionStage<?> stage) {
			stage.whenComplete((value, failure) -> {
				if (failure != null) {
					observation.error(failure);
				}
				observation.stop();
			});
		}
		else {
			observation.stop();
		}
		return result;
	}

	private @Nullable Object invokeExclusive(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
			List<String> keys, Observation observation) throws Throwable {
		LockAttempt attempt;
		LockOptions options = attribute.options(this.defaults.get());
		try {
			attempt = attribute.eachKey() ? this.locks.get().tryAcquire(keys, options)
					: this.locks.get().tryAcquire(keys.get(0), options);
		}
		catch (LockStoreException ex) {
			return proceedWithoutLock(invocation, attribute, ex, observation);
		}
		if (!attempt.isAcquired()) {
			outcome(observation, notAcquired(options));
			throw new LockConflictException(attribute.name(), attempt.retryAfter(), attribute.conflictStatus());
		}
		outcome(observation, Outcome.ACQUIRED.tagValue());
		Lease lease = attempt.lease();
		if (attribute.completionStage()) {
			return proceedAsync(invocation, lease);
		}
		try {
			return proceedWithin(invocation, lease);
		}
		finally {
			lease.close();
		}
	}

	private String storeName() {
		return (this.locks.get() instanceof LockTemplate template) ? template.getStoreName() : "unknown";
	}

	private static String notAcquired(LockOptions options) {
		return (options.getWaitTime().isZero() && options.getRetries() == 0) ? Outcome.CONFLICT.tagValue()
				: Outcome.WAIT_TIMEOUT.tagValue();
	}

	private static void outcome(Observation observation, String outcome) {
		if (observation.getContext() instanceof ExclusiveRequestObservationContext context) {
			context.setOutcome(outcome);
		}
	}

	private static void outcomeIfUnknown(Observation observation, String outcome) {
		if (observation.getContext() instanceof ExclusiveRequestObservationContext context
				&& context.getOutcome() == null) {
			context.setOutcome(outcome);
		}
	}

	/**
	 * Single-flight. The caller first notes the id of the result already kept for the
	 * key, if any, then tries to acquire: at once, or else waiting as a follower. A
	 * follower woken by a release (or a poll) reads the kept result before trying again,
	 * and returns one kept after it arrived without taking the lock ({@link NewResult}),
	 * so that all followers of one run are answered together. A follower that gets the
	 * lock (the holder released it or died without a result) looks for a result too: one
	 * whose id differs from the noted one was kept after this caller arrived, by the run
	 * it waited for or a later one, and is returned; otherwise the holder left nothing,
	 * and this caller takes over.
	 */
	private @Nullable Object invokeSharing(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
			ResultSharing sharing, String key, Observation observation) throws Throwable {
		LockOperations locks = this.locks.get();
		LockOptions options = attribute.sharedResultOptions(this.defaults.get());
		String seen;
		LockAttempt attempt;
		try {
			// One store call: the result already kept, and an attempt at once
			LockAttemptWithResult first = locks.tryAcquireReadingResult(key, options.withWaitTime(Duration.ZERO));
			seen = SharedResult.idOf(first.keptResult());
			attempt = first.attempt();
		}
		catch (LockStoreException ex) {
			return proceedWithoutLock(invocation, attribute, ex, observation);
		}
		if (!attempt.isAcquired()) {
			NewResult woken = new NewResult(this.keptResultReads, locks, key, sharing, seen, System.nanoTime());
			attempt = locks.tryAcquire(key, options, woken);
			if (woken.found != null) {
				notifyShared(attribute, observation);
				return deliver(woken.found, attribute, sharing);
			}
			if (!attempt.isAcquired()) {
				outcome(observation, notAcquired(options));
				throw new LockConflictException(attribute.name(), attempt.retryAfter(), attribute.conflictStatus());
			}
			Lease lease = attempt.lease();
			SharedResult found;
			try {
				found = readRecord(locks.findResult(key).orElse(null), sharing);
			}
			catch (RuntimeException ex) {
				lease.close();
				throw ex;
			}
			if (found != null && !found.id().equals(seen)) {
				lease.close();
				notifyShared(attribute, observation);
				return deliver(found, attribute, sharing);
			}
			outcome(observation, Outcome.ACQUIRED.tagValue());
			return runAndShare(invocation, attribute, sharing, lease);
		}
		outcome(observation, Outcome.ACQUIRED.tagValue());
		return runAndShare(invocation, attribute, sharing, attempt.lease());
	}

	/**
	 * Whether a single-flight follower, woken while it waits, finds a result kept after
	 * it arrived: then it stops waiting and returns that result without taking the lock,
	 * at the same time as every other follower woken by the same release. A store that
	 * cannot be read now is not a reason to stop: the follower waits on, and reads again
	 * once it holds the lock.
	 */
	private static final class NewResult implements BooleanSupplier {

		private final KeptResultReads reads;

		private final LockOperations locks;

		private final String key;

		private final ResultSharing sharing;

		private final @Nullable String seen;

		private final long arrivedAt;

		@Nullable SharedResult found;

		NewResult(KeptResultReads reads, LockOperations locks, String key, ResultSharing sharing, @Nullable String seen,
				long arrivedAt) {
			this.reads = reads;
			this.locks = locks;
			this.key = key;
			this.sharing = sharing;
			this.seen = seen;
			this.arrivedAt = arrivedAt;
		}

		@Override
		public boolean getAsBoolean() {
			byte[] bytes;
			try {
				bytes = this.reads.read(this.locks, this.key, this.arrivedAt);
			}
			catch (LockStoreException ex) {
				return false;
			}
			SharedResult result = readRecord(bytes, this.sharing);
			if (result != null && !result.id().equals(this.seen)) {
				this.found = result;
				return true;
			}
			return false;
		}

	}

	private @Nullable Object runAndShare(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
			ResultSharing sharing, Lease lease) throws Throwable {
		Object result;
		try {
			result = proceedWithin(invocation, lease);
		}
		catch (Throwable ex) {
			try {
				shareFailure(sharing, lease, ex);
			}
			finally {
				lease.close();
			}
			throw ex;
		}
		if (attribute.completionStage()) {
			if (!(result instanceof CompletionStage<?> stage)) {
				lease.close();
				return result;
			}
			// The caller's stage completes after the outcome is kept and the lock
			// released, and
			// fails like the followers' when the value cannot be serialized.
			CompletableFuture<@Nullable Object> shared = new CompletableFuture<>();
			stage.whenComplete((value, failure) -> {
				Throwable outcome = (failure instanceof CompletionException && failure.getCause() != null)
						? failure.getCause() : failure;
				try {
					if (outcome != null) {
						shareFailure(sharing, lease, outcome);
					}
					else {
						shareValue(sharing, lease, value);
					}
				}
				catch (Throwable ex) {
					outcome = ex;
				}
				finally {
					lease.close();
				}
				if (outcome != null) {
					shared.completeExceptionally(outcome);
				}
				else {
					shared.complete(value);
				}
			});
			return shared;
		}
		try {
			shareValue(sharing, lease, result);
		}
		finally {
			lease.close();
		}
		return result;
	}

	private void shareValue(ResultSharing sharing, Lease lease, @Nullable Object value) {
		SharedResult record;
		if (sharing.voidResult()) {
			record = SharedResult.completion();
		}
		else {
			try {
				record = SharedResult.value(codec(sharing).encode(value, sharing.resultType()));
			}
			catch (RuntimeException ex) {
				IllegalStateException failure = unserializable(sharing, ex);
				keep(sharing, lease, SharedFailures.record(failure));
				throw failure;
			}
		}
		keep(sharing, lease, record);
	}

	private void shareFailure(ResultSharing sharing, Lease lease, Throwable failure) {
		if (!sharing.takeOverOnFailure()) {
			keep(sharing, lease, SharedFailures.record(failure));
		}
	}

	private static IllegalStateException unserializable(ResultSharing sharing, RuntimeException cause) {
		return new IllegalStateException("The result of " + sharing.describeMethod()
				+ " cannot be shared with the callers waiting for it: it cannot be serialized as "
				+ sharing.resultType().getTypeName() + " (" + cause.getMessage() + ")", cause);
	}

	/**
	 * Keep the outcome and release the lock, in one store call where the store can; the
	 * caller's {@code close()} that follows releases a lock the call failed to.
	 */
	private void keep(ResultSharing sharing, Lease lease, SharedResult record) {
		try {
			if (!lease.releaseKeepingResult(record.toBytes(), resultTtl(sharing))) {
				logLostBeforeKept(sharing);
			}
		}
		catch (RuntimeException ex) {
			logNotKept(sharing, ex);
		}
	}

	private Duration resultTtl(ResultSharing sharing) {
		Duration ttl = sharing.resultTtl();
		return (ttl != null) ? ttl : this.defaultResultTtl.get();
	}

	private static void logLostBeforeKept(ResultSharing sharing) {
		logger.warn("The lock of " + sharing.describeMethod() + " was lost before its result could be kept; "
				+ "a waiting caller will run the method again");
	}

	private static void logNotKept(ResultSharing sharing, Throwable failure) {
		logger.warn("The result of " + sharing.describeMethod() + " could not be kept for the callers waiting "
				+ "for it; one of them will run the method again", failure);
	}

	/**
	 * Read the record kept for a key; {@code null} if there is none, or if it is in
	 * another format (logged: the caller then runs the method).
	 */
	private static @Nullable SharedResult readRecord(byte @Nullable [] bytes, ResultSharing sharing) {
		try {
			return SharedResult.fromBytes(bytes);
		}
		catch (IllegalArgumentException ex) {
			logger.warn("Ignoring a result kept for " + sharing.describeMethod() + " in another format ("
					+ ex.getMessage() + "); running the method");
			return null;
		}
	}

	private @Nullable Object decodeValue(SharedResult found, ResultSharing sharing) {
		try {
			return codec(sharing).decode(found.valueBytes(), sharing.resultType());
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("The result shared for " + sharing.describeMethod()
					+ " cannot be deserialized as " + sharing.resultType().getTypeName() + ": " + ex.getMessage(), ex);
		}
	}

	private void notifyShared(ExclusiveRequestAttribute attribute, Observation observation) {
		outcome(observation, "shared");
		LockListener listener = this.listener.get();
		if (listener != null) {
			listener.resultShared(attribute.name());
		}
	}

	private @Nullable Object deliver(SharedResult found, ExclusiveRequestAttribute attribute, ResultSharing sharing)
			throws Throwable {
		Object value = null;
		Throwable failure = null;
		switch (found.kind()) {
			case VALUE -> value = decodeValue(found, sharing);
			case VOID -> value = null;
			case FAILURE -> failure = SharedFailures.recreate(found, sharing.method(), attribute.name());
		}
		if (attribute.completionStage()) {
			return (failure != null) ? CompletableFuture.failedFuture(failure)
					: CompletableFuture.completedFuture(value);
		}
		if (failure != null) {
			throw failure;
		}
		return value;
	}

	private ResultCodec codec(ResultSharing sharing) {
		ResultCodec codec = this.resultCodec.get();
		if (codec == null) {
			throw new IllegalStateException(
					sharing.describeMethod() + " shares its result, but no ResultCodec " + "is configured");
		}
		return codec;
	}

	/**
	 * The store failed to answer an acquisition: fail closed (rethrow), or, with
	 * {@link StoreFailurePolicy#FAIL_OPEN}, run the method without a lock.
	 */
	private @Nullable Object proceedWithoutLock(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
			LockStoreException failure, Observation observation) throws Throwable {
		if (this.storeFailurePolicy != StoreFailurePolicy.FAIL_OPEN) {
			outcome(observation, Outcome.STORE_ERROR.tagValue());
			throw failure;
		}
		outcome(observation, "fail-open");
		logFailOpen(attribute.name(), failure);
		return invocation.proceed();
	}

	private void logFailOpen(String name, LockStoreException failure) {
		long runs = this.failOpenRuns.incrementAndGet();
		long now = System.nanoTime();
		long last = this.failOpenLoggedAt.get();
		if (now - last >= FAIL_OPEN_LOG_INTERVAL && this.failOpenLoggedAt.compareAndSet(last, now)) {
			this.failOpenRuns.addAndGet(-runs);
			logger.warn("Lock store failed; running @ExclusiveRequest method(s) WITHOUT a lock, as the store "
					+ "failure policy is FAIL_OPEN: " + runs + " run(s) since the last warning, the latest of '" + name
					+ "': " + failure.getMessage());
		}
	}

	private static @Nullable Object proceedWithin(MethodInvocation invocation, Lease lease) throws Throwable {
		ExclusiveRequestContext.push(lease);
		try {
			return invocation.proceed();
		}
		finally {
			ExclusiveRequestContext.pop();
		}
	}

	private static @Nullable Object proceedAsync(MethodInvocation invocation, Lease lease) throws Throwable {
		Object result;
		try {
			result = proceedWithin(invocation, lease);
		}
		catch (Throwable ex) {
			lease.close();
			throw ex;
		}
		if (result instanceof CompletionStage<?> stage) {
			stage.whenComplete((value, failure) -> lease.close());
		}
		else {
			lease.close();
		}
		return result;
	}

	/**
	 * Locks the methods that return a reactive type, in the manner of Spring's
	 * {@code CacheAspectSupport.ReactiveCachingHandler}: an inner class, so that Reactor
	 * is loaded only when such a method is called.
	 */
	private final class ReactiveLockingHandler {

		private final ReactiveLockOperations locks;

		ReactiveLockingHandler() {
			LockOperations operations = ExclusiveRequestInterceptor.this.locks.get();
			if (operations instanceof ReactiveLockOperations reactive) {
				this.locks = reactive;
			}
			else if (operations instanceof LockTemplate template) {
				this.locks = new ReactiveLockTemplate(template);
			}
			else {
				throw new IllegalStateException("@ExclusiveRequest methods with a reactive return type need a "
						+ "LockTemplate or a LockOperations that is also a ReactiveLockOperations, not "
						+ operations.getClass().getName());
			}
		}

		@Nullable Object invoke(MethodInvocation invocation, ExclusiveRequestAttribute attribute, ReactiveAdapter adapter) {
			if (adapter.isMultiValue()) {
				return adapter.fromPublisher(
						observing(attribute, (observation) -> acquire(invocation, attribute, observation).flatMapMany(
								(acquired) -> proceedHolding(invocation, attribute, adapter, acquired, observation))));
			}
			ResultSharing sharing = attribute.resultSharing();
			if (sharing != null) {
				return adapter.fromPublisher(observing(attribute,
						(observation) -> share(invocation, attribute, adapter, sharing, observation))
					.next());
			}
			// One value: delivered once the lock is released, as a method's return value
			// is
			return adapter
				.fromPublisher(
						observing(attribute,
								(observation) -> acquire(invocation, attribute, observation).flatMap((acquired) -> Mono
									.from(proceedHolding(invocation, attribute, adapter, acquired, observation))))
							.next());
		}

		/**
		 * On each subscription, start a {@code lock.request} observation, as a child of
		 * the observation that the subscriber's Reactor context carries (the HTTP
		 * request's, in WebFlux), and carry it in the context of the guarded publisher,
		 * so that the method's own observations are its children.
		 */
		private Flux<Object> observing(ExclusiveRequestAttribute attribute,
				Function<Observation, Publisher<Object>> guarded) {
			return Flux.deferContextual((context) -> {
				Observation observation = start(attribute, context.getOrDefault(OBSERVATION_CONTEXT_KEY, null));
				return observed(observation, guarded.apply(observation))
					.contextWrite((inner) -> inner.put(OBSERVATION_CONTEXT_KEY, observation));
			});
		}

		private Observation start(ExclusiveRequestAttribute attribute, @Nullable Observation parent) {
			return LockObservationDocumentation.EXCLUSIVE_REQUEST
				.observation(ExclusiveRequestInterceptor.this.observationConvention.get(),
						DefaultExclusiveRequestObservationConvention.INSTANCE,
						() -> new ExclusiveRequestObservationContext(attribute.name(), storeName()),
						ExclusiveRequestInterceptor.this.observationRegistry.get())
				.parentObservation(parent)
				.start();
		}

		private Flux<Object> observed(Observation observation, Publisher<Object> guarded) {
			return Flux.from(guarded).doOnError((ex) -> {
				outcomeIfUnknown(observation, Outcome.STORE_ERROR.tagValue());
				observation.error(ex);
			}).doFinally((signal) -> observation.stop());
		}

		/**
		 * Acquire on subscription; empty when the store failed and the method runs
		 * without a lock ({@link StoreFailurePolicy#FAIL_OPEN}).
		 */
		private Mono<Optional<LockAttempt>> acquire(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
				Observation observation) {
			Object[] arguments = invocation.getArguments();
			LockOptions options = attribute.options(ExclusiveRequestInterceptor.this.defaults.get());
			Mono<LockAttempt> acquisition;
			try {
				acquisition = attribute.eachKey()
						? this.locks.tryAcquire(attribute.keyResolver().resolveEach(arguments), options)
						: this.locks.tryAcquire(attribute.keyResolver().resolve(arguments), options);
			}
			catch (RuntimeException ex) {
				// A key that cannot be resolved: an error signal, the method is not
				// invoked
				return Mono.error(ex);
			}
			return acquisition.map((attempt) -> {
				if (!attempt.isAcquired()) {
					outcome(observation, notAcquired(options));
					throw new LockConflictException(attribute.name(), attempt.retryAfter(), attribute.conflictStatus());
				}
				outcome(observation, Outcome.ACQUIRED.tagValue());
				return Optional.of(attempt);
			}).onErrorResume(LockStoreException.class, (ex) -> storeFailed(ex, attribute, observation));
		}

		/**
		 * The store failed to answer: an error signal, or, with
		 * {@link StoreFailurePolicy#FAIL_OPEN}, empty, for the method to run without a
		 * lock.
		 */
		private <T> Mono<Optional<T>> storeFailed(LockStoreException failure, ExclusiveRequestAttribute attribute,
				Observation observation) {
			if (ExclusiveRequestInterceptor.this.storeFailurePolicy != StoreFailurePolicy.FAIL_OPEN) {
				outcome(observation, Outcome.STORE_ERROR.tagValue());
				return Mono.error(failure);
			}
			outcome(observation, "fail-open");
			logFailOpen(attribute.name(), failure);
			return Mono.just(Optional.empty());
		}

		private Publisher<Object> proceedHolding(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
				ReactiveAdapter adapter, Optional<LockAttempt> acquired, Observation observation) {
			if (acquired.isEmpty()) {
				return proceed(invocation, adapter);
			}
			Lease lease = acquired.get().lease();
			if (adapter.isMultiValue()) {
				return Flux.usingWhen(Mono.just(lease), (held) -> proceed(invocation, adapter), this::release,
						(held, failure) -> release(held), this::release);
			}
			return Mono.usingWhen(Mono.just(lease), (held) -> Mono.from(proceed(invocation, adapter)), this::release,
					(held, failure) -> release(held), this::release);
		}

		/**
		 * Single-flight, as {@link #invokeSharing} does for blocking methods, without
		 * blocking a thread: note the id of the result already kept, try at once, else
		 * wait as a follower. A follower that gets the lock returns a result kept after
		 * it arrived, without invoking the method, or takes over when the holder left
		 * none. The holder keeps its outcome next to the lock before releasing it; a
		 * holder that is cancelled keeps nothing and releases.
		 */
		private Mono<Object> share(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
				ReactiveAdapter adapter, ResultSharing sharing, Observation observation) {
			String key;
			try {
				key = attribute.keyResolver().resolve(invocation.getArguments());
			}
			catch (RuntimeException ex) {
				return Mono.error(ex);
			}
			LockOptions options = attribute.sharedResultOptions(ExclusiveRequestInterceptor.this.defaults.get());
			Mono<Optional<SharingStart>> started = this.locks.findResult(key)
				.map((bytes) -> Optional.ofNullable(SharedResult.idOf(bytes)))
				.defaultIfEmpty(Optional.empty())
				.flatMap((seen) -> this.locks.tryAcquire(key, options.withWaitTime(Duration.ZERO))
					.map((attempt) -> Optional.of(new SharingStart(seen.orElse(null), attempt))))
				.onErrorResume(LockStoreException.class, (ex) -> storeFailed(ex, attribute, observation));
			return started.flatMap((start) -> {
				if (start.isEmpty()) {
					return Mono.from(proceed(invocation, adapter));
				}
				LockAttempt attempt = start.get().attempt();
				if (attempt.isAcquired()) {
					outcome(observation, Outcome.ACQUIRED.tagValue());
					return holding(attempt.lease(), (lease) -> runAndShare(invocation, adapter, sharing, lease));
				}
				return follow(invocation, attribute, adapter, sharing, key, options, start.get().seen(), observation);
			});
		}

		private Mono<Object> follow(MethodInvocation invocation, ExclusiveRequestAttribute attribute,
				ReactiveAdapter adapter, ResultSharing sharing, String key, LockOptions options, @Nullable String seen,
				Observation observation) {
			// Woken by a release, read the result first: when one was kept after this
			// caller arrived, it is returned without taking the lock
			AtomicReference<@Nullable SharedResult> woken = new AtomicReference<>();
			long arrivedAt = System.nanoTime();
			Mono<Boolean> newResult = ExclusiveRequestInterceptor.this.keptResultReads
				.readReactive(this.locks, key, arrivedAt)
				.map((bytes) -> {
					SharedResult found = readRecord(bytes, sharing);
					if (found != null && !found.id().equals(seen)) {
						woken.set(found);
						return true;
					}
					return false;
				})
				.onErrorResume(LockStoreException.class, (ex) -> Mono.just(false));
			return this.locks.tryAcquire(key, options, newResult).flatMap((attempt) -> {
				SharedResult kept = woken.get();
				if (kept != null) {
					return Mono.just(new Found(kept));
				}
				if (!attempt.isAcquired()) {
					outcome(observation, notAcquired(options));
					return Mono.error(new LockConflictException(attribute.name(), attempt.retryAfter(),
							attribute.conflictStatus()));
				}
				return holding(attempt.lease(),
						(lease) -> this.locks.findResult(key)
							.map((bytes) -> Optional.ofNullable(readRecord(bytes, sharing)))
							.defaultIfEmpty(Optional.empty())
							.flatMap((found) -> {
								if (found.isPresent() && !found.get().id().equals(seen)) {
									return Mono.just(new Found(found.get()));
								}
								outcome(observation, Outcome.ACQUIRED.tagValue());
								return runAndShare(invocation, adapter, sharing, lease);
							}));
			}).flatMap((result) -> {
				if (result instanceof Found found) {
					notifyShared(attribute, observation);
					return deliver(found.record(), attribute, sharing);
				}
				return Mono.just(result);
			});
		}

		/**
		 * Run while holding a lease, and release it when the work completes (before its
		 * value is delivered), fails or is cancelled.
		 */
		private Mono<Object> holding(Lease lease, Function<Lease, Mono<Object>> work) {
			return Mono.usingWhen(Mono.just(lease), work, this::release, (held, failure) -> release(held),
					this::release);
		}

		/**
		 * Invoke the method and keep its outcome next to the lock: the value, an empty
		 * completion, or the failure (unless a waiting caller takes over on failure). A
		 * value that cannot be serialized fails this caller like the waiting ones.
		 */
		private Mono<Object> runAndShare(MethodInvocation invocation, ReactiveAdapter adapter, ResultSharing sharing,
				Lease lease) {
			return Mono.from(proceed(invocation, adapter))
				.onErrorResume((ex) -> sharing.takeOverOnFailure() ? Mono.error(ex)
						: keep(sharing, lease, SharedFailures.record(ex)).then(Mono.error(ex)))
				.flatMap((value) -> shareValue(sharing, lease, value).thenReturn(value))
				.switchIfEmpty(Mono.defer(() -> keep(sharing, lease, SharedResult.completion()).then(Mono.empty())));
		}

		private Mono<Void> shareValue(ResultSharing sharing, Lease lease, Object value) {
			if (sharing.voidResult()) {
				return keep(sharing, lease, SharedResult.completion());
			}
			SharedResult record;
			try {
				record = SharedResult.value(codec(sharing).encode(value, sharing.resultType()));
			}
			catch (RuntimeException ex) {
				IllegalStateException failure = unserializable(sharing, ex);
				return keep(sharing, lease, SharedFailures.record(failure)).then(Mono.error(failure));
			}
			return keep(sharing, lease, record);
		}

		/** Keep a record; a failure to keep it is logged, never signalled. */
		private Mono<Void> keep(ResultSharing sharing, Lease lease, SharedResult record) {
			return Mono.defer(() -> this.locks.putResult(lease, record.toBytes(), resultTtl(sharing)))
				.doOnNext((stored) -> {
					if (!stored) {
						logLostBeforeKept(sharing);
					}
				})
				.onErrorResume((ex) -> {
					logNotKept(sharing, ex);
					return Mono.empty();
				})
				.then();
		}

		private Mono<Object> deliver(SharedResult found, ExclusiveRequestAttribute attribute, ResultSharing sharing) {
			return switch (found.kind()) {
				case VALUE -> Mono.fromCallable(() -> decodeValue(found, sharing));
				case VOID -> Mono.empty();
				case FAILURE -> Mono.error(SharedFailures.recreate(found, sharing.method(), attribute.name()));
			};
		}

		private Flux<Object> proceed(MethodInvocation invocation, ReactiveAdapter adapter) {
			Object result;
			try {
				result = invocation.proceed();
			}
			catch (Throwable ex) {
				return Flux.error(ex);
			}
			return (result != null) ? Flux.from(adapter.toPublisher(result)) : Flux.empty();
		}

		/**
		 * The id of the result kept before a single-flight call tried the lock, and that
		 * first attempt.
		 */
		private record SharingStart(@Nullable String seen, LockAttempt attempt) {

		}

		/** A result kept by the run a follower waited for, to deliver once released. */
		private record Found(SharedResult record) {

		}

		/** Release; a failure is logged and the lock expires with its time-to-live. */
		private Mono<Void> release(Lease lease) {
			return this.locks.release(lease).onErrorResume((ex) -> {
				logger.warn("Failed to release lock '" + LogSafe.key(lease.key())
						+ "'; it expires at the end of its time-to-live", ex);
				return Mono.empty();
			}).then();
		}

	}

}
