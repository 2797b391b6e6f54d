package dev.lockstarter.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.FinishedAttempt.Outcome;
import dev.lockstarter.observation.DefaultLockAcquireObservationConvention;
import dev.lockstarter.observation.LockAcquireContext;
import dev.lockstarter.observation.LockAcquireObservationConvention;
import dev.lockstarter.observation.LockObservationDocumentation;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.FencingOnDemandLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.AcquireReplyWithResult;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Default {@link LockOperations}: adds the key prefix, draws a fresh random owner token
 * for every acquisition, waits and renews as the {@link LockOptions} say, and delegates
 * to a {@link LockStore}.
 * <p>
 * Store keys are {@code prefix + key}; keys whose store key would exceed 250 bytes of
 * UTF-8 are replaced by the SHA-256 of the key, Base64 URL-encoded. Owner tokens are 128
 * random bits from a {@link java.security.SecureRandom}; they are never derived from a
 * thread, are never logged and never leave the store.
 * <p>
 * <b>Waiting</b>: a waiter tries again at once when a {@link ReleaseNotifyingLockStore}
 * announces a release of its key, and in any case polls with exponential backoff and
 * jitter (from 100 ms up to 1 s with notifications, from 10 ms up to 500 ms without),
 * never sleeping past the holder's remaining time-to-live or the end of the wait. When
 * the store can {@linkplain ReleaseNotifyingLockStore#tryAcquireOnRelease acquire from
 * its listener}, the waiter of one key does not wake to try: the store thread that
 * announced the release sends its acquisition, and the waiter is woken with the answer.
 * <p>
 * <b>Renewal</b>: one daemon thread, shared by all leases of this template, extends held
 * locks a third of their time-to-live after their last extension, in one store call per
 * batch of leases due together. A renewal that finds the lock gone marks the lease lost,
 * logs a WARN and publishes a {@link LockLostEvent}.
 * <p>
 * <b>Failed acquisitions</b>: when the store call of an acquisition fails (a timeout, a
 * connection lost after the request was sent), the store may still have granted the lock.
 * The caller gets the {@link LockStoreException} at once, and the lock is released by its
 * owner token in the background, retried until its time-to-live has passed, so that such
 * an orphan does not block its key for its whole time-to-live once the store answers
 * again.
 * <p>
 * <b>Observability</b>: each acquisition is a {@code lock.acquire} observation on the
 * {@link #setObservationRegistry ObservationRegistry} (none by default), and every
 * acquisition, release, renewal and loss is told to the {@link #addListener listeners}.
 * The locks held now are listed by {@link #getHeldLocks()}. The hold times of each lock
 * name feed the {@link LockAttempt#retryAfter() retry-after estimate} of a conflict.
 *
 * @since 0.1.0
 */
public class LockTemplate implements LockOperations, ApplicationEventPublisherAware, DisposableBean {

	/** The default key prefix. */
	public static final String DEFAULT_KEY_PREFIX = "lock:";

	/** Polls while release notifications may wake the waiter: a safety net. */
	static final BackOff NOTIFIED_POLLS = polls(100, 1000);

	/** Polls of a store without release notifications. */
	static final BackOff POLLED_POLLS = polls(10, 500);

	/** The name reported for locks whose options set none. */
	public static final String UNNAMED = "unnamed";

	private static final Log logger = LogFactory.getLog(LockTemplate.class);

	private final LockStore store;

	private final StoreKeys storeKeys;

	private final LeaseRenewer renewer;

	private final OrphanCleaner cleaner;

	private final String storeName;

	private final List<LockListener> listeners = new CopyOnWriteArrayList<>();

	private final Set<StoreLease> held = ConcurrentHashMap.newKeySet();

	private final HoldTimes holdTimes = new HoldTimes();

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable LockAcquireObservationConvention observationConvention;

	private volatile @Nullable ApplicationEventPublisher eventPublisher;

	/**
	 * Create a template with the {@linkplain #DEFAULT_KEY_PREFIX default key prefix}.
	 * @param store the lock store
	 */
	public LockTemplate(LockStore store) {
		this(store, DEFAULT_KEY_PREFIX);
	}

	/**
	 * Create a template.
	 * @param store the lock store
	 * @param keyPrefix the prefix of every store key, may be empty
	 */
	public LockTemplate(LockStore store, String keyPrefix) {
		Assert.notNull(store, "'store' must not be null");
		Assert.notNull(keyPrefix, "'keyPrefix' must not be null");
		this.store = store;
		this.storeKeys = new StoreKeys(keyPrefix);
		this.renewer = new LeaseRenewer(store, this.held);
		this.cleaner = new OrphanCleaner(store);
		this.storeName = storeNameOf(store);
	}

	/**
	 * Set the registry of the {@code lock.acquire} observations; none by default.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		Assert.notNull(observationRegistry, "'observationRegistry' must not be null");
		this.observationRegistry = observationRegistry;
	}

	/**
	 * Set the convention of the {@code lock.acquire} observations, replacing
	 * {@link DefaultLockAcquireObservationConvention}.
	 * @param observationConvention the convention, or {@code null} for the default
	 */
	public void setObservationConvention(@Nullable LockAcquireObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	/**
	 * Add a listener of acquisitions, releases, renewals and losses.
	 * @param listener the listener
	 */
	public void addListener(LockListener listener) {
		Assert.notNull(listener, "'listener' must not be null");
		this.listeners.add(listener);
	}

	/**
	 * Return the kind of store, as reported in meters and observations: the store's
	 * simple class name without {@code LockStore} (or {@code Store}), in lower case
	 * ({@code redis}, {@code memcached}, {@code dynamodb}), and {@code memory} for the
	 * in-memory store.
	 * @return the kind of store
	 */
	public String getStoreName() {
		return this.storeName;
	}

	/**
	 * Return the prefix of every store key.
	 * @return the key prefix, may be empty
	 */
	public String getKeyPrefix() {
		return this.storeKeys.prefix();
	}

	/**
	 * Return the locks this template holds now, the longest held first. Locks are listed
	 * from acquisition to release or loss.
	 * @return a snapshot of live views
	 */
	public List<HeldLock> getHeldLocks() {
		List<HeldLock> locks = new ArrayList<>(this.held);
		locks.sort(Comparator.comparing(HeldLock::acquiredAt));
		return locks;
	}

	/**
	 * Set the publisher of {@link LockLostEvent}s; without one, lost locks are only
	 * logged.
	 * @param eventPublisher the publisher
	 */
	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher eventPublisher) {
		this.eventPublisher = eventPublisher;
	}

	@Override
	public LockAttempt tryAcquire(String key, LockOptions options) {
		return tryAcquire(singleKeyAttempt(key, options), key);
	}

	/** A new attempt on one key, its arguments checked. */
	private Attempt singleKeyAttempt(String key, LockOptions options) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		Assert.notNull(options, "'options' must not be null");
		return new Attempt(List.of(key), List.of(this.storeKeys.storeKey(key)), OwnerTokens.next(), options);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Each try is one call of {@link ResultStoringLockStore#tryAcquireReadingResult}.
	 */
	@Override
	public LockAttemptWithResult tryAcquireReadingResult(String key, LockOptions options) {
		Attempt attempt = singleKeyAttempt(key, options);
		if (!(this.store instanceof ResultStoringLockStore)) {
			throw new UnsupportedOperationException(
					"Lock store " + this.store.getClass().getName() + " keeps no results");
		}
		attempt.readsResult = true;
		LockAttempt outcome = tryAcquire(attempt, key);
		return new LockAttemptWithResult(outcome, attempt.keptResult);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A caller stopped by {@code stopWaiting} is counted with the outcome
	 * {@link FinishedAttempt.Outcome#STOPPED}.
	 */
	@Override
	public LockAttempt tryAcquire(String key, LockOptions options, BooleanSupplier stopWaiting) {
		Assert.notNull(stopWaiting, "'stopWaiting' must not be null");
		Attempt attempt = singleKeyAttempt(key, options);
		attempt.stopWaiting = stopWaiting;
		return tryAcquire(attempt, key);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The keys are deduplicated and sorted by their store keys. With a
	 * {@link MultiKeyLockStore}, each attempt is one
	 * {@link MultiKeyLockStore#tryAcquireAll} call; with any other store, the keys are
	 * acquired one by one in that order, and when one is held, those already taken are
	 * released by the owner token (in the background, retried until their time-to-live
	 * passes, if a release fails). The acquisition is one {@code lock.acquire}
	 * observation and one {@link LockListener#acquisitionFinished} whose key lists the
	 * keys; each key is a {@link HeldLock} of its own while held.
	 */
	@Override
	public LockAttempt tryAcquire(Collection<String> keys, LockOptions options) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		Assert.notNull(options, "'options' must not be null");
		SortedMap<String, String> byStoreKey = new TreeMap<>();
		for (String key : keys) {
			Assert.isTrue(StringUtils.hasText(key), "'keys' must not contain a blank key");
			byStoreKey.putIfAbsent(this.storeKeys.storeKey(key), key);
		}
		List<String> sortedKeys = List.copyOf(byStoreKey.values());
		Attempt attempt = new Attempt(sortedKeys, List.copyOf(byStoreKey.keySet()), OwnerTokens.next(), options);
		return tryAcquire(attempt, (sortedKeys.size() == 1) ? sortedKeys.get(0) : sortedKeys.toString());
	}

	private LockAttempt tryAcquire(Attempt attempt, String description) {
		LockOptions options = attempt.options;
		String name = nameOf(options);
		Observation observation = LockObservationDocumentation.LOCK_ACQUIRE
			.observation(this.observationConvention, DefaultLockAcquireObservationConvention.INSTANCE,
					() -> new LockAcquireContext(name, this.storeName), this.observationRegistry)
			.start();
		long startedAt = System.nanoTime();
		// The first try is sent now too: one clock read instead of two
		attempt.sentAt = startedAt;
		Outcome outcome = Outcome.STORE_ERROR;
		// A scope of a no-op registry changes nothing: it is not opened
		try (Observation.Scope scope = this.observationRegistry.isNoop() ? null : observation.openScope()) {
			LockAttempt result = acquire(attempt, options);
			outcome = result.isAcquired() ? Outcome.ACQUIRED
					: attempt.stopped ? Outcome.STOPPED : (attempt.waited ? Outcome.WAIT_TIMEOUT : Outcome.CONFLICT);
			return result;
		}
		catch (LockWaitInterruptedException ex) {
			outcome = Outcome.INTERRUPTED;
			observation.error(ex);
			throw ex;
		}
		catch (RuntimeException ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			if (observation.getContext() instanceof LockAcquireContext context) {
				context.setOutcome(outcome.tagValue());
			}
			observation.stop();
			if (!this.listeners.isEmpty()) {
				FinishedAttempt acquisition = new FinishedAttempt(name, description, outcome,
						Duration.ofNanos(System.nanoTime() - startedAt), attempt.waited);
				notifyListeners((listener) -> listener.acquisitionFinished(acquisition));
			}
		}
	}

	private LockAttempt acquire(Attempt attempt, LockOptions options) {
		if (attempt.tryOnce() || (options.getWaitTime().isZero() && options.getRetries() == 0)) {
			return attempt.outcome();
		}
		attempt.waited = true;
		try {
			return (options.getRetries() > 0) ? attempt.retry() : attempt.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockWaitInterruptedException(attempt.description(), ex);
		}
	}

	@Override
	public boolean supportsResults() {
		return this.store instanceof ResultStoringLockStore;
	}

	@Override
	public Optional<byte[]> findResult(String key) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		if (!(this.store instanceof ResultStoringLockStore results)) {
			throw new UnsupportedOperationException(
					"Lock store " + this.store.getClass().getName() + " keeps no results");
		}
		return Optional.ofNullable(results.getResult(this.storeKeys.storeKey(key)));
	}

	/**
	 * Acquire a lock for an owner outside this JVM, such as the client of a lock service,
	 * waiting as the options say: the lease is a {@link DetachedLease}, owned by whoever
	 * has its owner token, which this template neither renews nor lists among its held
	 * locks. The lock is the same as the one {@link #tryAcquire(String, LockOptions)}
	 * takes on the key, so both exclude each other. The acquisition is observed and told
	 * to the listeners as any other.
	 * @param key the key
	 * @param options the options; renewal, a minimum hold and a maximum hold do not apply
	 * and must not be set
	 * @return the attempt, whose lease is a {@link DetachedLease} when acquired
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	public LockAttempt tryAcquireDetached(String key, LockOptions options) {
		Assert.notNull(options, "'options' must not be null");
		Assert.isTrue(options.getHoldAtLeast().isZero() && options.getMaxHold() == null,
				"A detached lease has no minimum or maximum hold");
		Attempt attempt = singleKeyAttempt(key, options.withRenewal(false));
		attempt.detached = true;
		return tryAcquire(attempt, key);
	}

	/**
	 * Reset the time-to-live of a detached lease's lock, if its owner token still holds
	 * it.
	 * @param key the key
	 * @param ownerToken the lease's {@linkplain DetachedLease#ownerToken() owner token}
	 * @param ttl the new time-to-live, counted from now, positive
	 * @return whether the token held the lock, which is now extended; {@code false}
	 * changed nothing
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	public boolean extendDetached(String key, String ownerToken, Duration ttl) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		Assert.isTrue(StringUtils.hasText(ownerToken), "'ownerToken' must not be blank");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		return this.store.extend(this.storeKeys.storeKey(key), ownerToken, ttl);
	}

	/**
	 * Release a detached lease's lock, if its owner token still holds it; waiters on any
	 * instance are told as for any release.
	 * @param key the key
	 * @param ownerToken the lease's {@linkplain DetachedLease#ownerToken() owner token}
	 * @return whether the token held the lock, which is now released; {@code false}
	 * changed nothing
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 */
	public boolean releaseDetached(String key, String ownerToken) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		Assert.isTrue(StringUtils.hasText(ownerToken), "'ownerToken' must not be blank");
		return this.store.release(this.storeKeys.storeKey(key), ownerToken);
	}

	/**
	 * Return how long the lock on a key is still held, by any owner, without changing it
	 * and without needing or revealing the owner token.
	 * @param key the key
	 * @return the holder's remaining time-to-live, or {@link Duration#ZERO} if the lock
	 * is free
	 * @throws LockStoreException if the store cannot be reached or does not answer in
	 * time
	 * @see LockStore#timeToExpiry(String)
	 */
	public Duration timeToExpiry(String key) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		return this.store.timeToExpiry(this.storeKeys.storeKey(key));
	}

	/**
	 * Stop renewing every lease and the renewal thread, and stop cleaning up failed
	 * acquisitions. Held locks then expire at the end of their time-to-live unless
	 * released.
	 */
	@Override
	public void destroy() {
		this.renewer.shutdown();
		this.cleaner.shutdown();
	}

	/**
	 * Return the renewer, for tests.
	 * @return the renewer
	 */
	LeaseRenewer renewer() {
		return this.renewer;
	}

	/**
	 * Return the cleaner of failed acquisitions, for tests.
	 * @return the cleaner
	 */
	OrphanCleaner cleaner() {
		return this.cleaner;
	}

	/**
	 * Return the store, for {@link ReactiveLockTemplate}.
	 * @return the store
	 */
	LockStore store() {
		return this.store;
	}

	/**
	 * Return the store key of a key, for {@link ReactiveLockTemplate}.
	 * @param key the key
	 * @return the prefixed, possibly hashed, store key
	 */
	String storeKey(String key) {
		return this.storeKeys.storeKey(key);
	}

	/**
	 * Start a {@code lock.acquire} observation, for {@link ReactiveLockTemplate}.
	 * @param name the lock's name
	 * @return the started observation
	 */
	Observation startAcquireObservation(String name) {
		return LockObservationDocumentation.LOCK_ACQUIRE
			.observation(this.observationConvention, DefaultLockAcquireObservationConvention.INSTANCE,
					() -> new LockAcquireContext(name, this.storeName), this.observationRegistry)
			.start();
	}

	/**
	 * Tell the listeners that an acquisition finished, for {@link ReactiveLockTemplate}.
	 * @param acquisition the acquisition
	 */
	void acquisitionFinished(FinishedAttempt acquisition) {
		if (!this.listeners.isEmpty()) {
			notifyListeners((listener) -> listener.acquisitionFinished(acquisition));
		}
	}

	/**
	 * Turn the answer of one store acquisition of a single key into an attempt: a lease,
	 * registered as held and for renewal as the options say, or the holder's remaining
	 * time and the retry-after estimate. For {@link ReactiveLockTemplate}.
	 * @param key the key
	 * @param storeKey the store key
	 * @param token the owner token
	 * @param result the store's answer
	 * @param options the options
	 * @param sentAt the {@link System#nanoTime()} at which the acquisition was sent
	 * @return the attempt
	 */
	LockAttempt outcome(String key, String storeKey, String token, AcquireReply result, LockOptions options,
			long sentAt) {
		if (!result.isAcquired()) {
			Duration remaining = result.holderRemainingTtl();
			return LockAttempt.held(key, remaining, this.holdTimes.retryAfter(nameOf(options), remaining));
		}
		StoreLease lease = new StoreLease(this, this.store, key, storeKey, token, result.fencingToken(), options,
				sentAt);
		this.held.add(lease);
		notifyListeners((listener) -> listener.acquired(lease));
		if (options.isRenew()) {
			this.renewer.register(lease);
		}
		return LockAttempt.acquired(lease);
	}

	/**
	 * Whether a store failure was caused by an interrupt. Store clients wrap it in their
	 * own types (Lettuce's {@code RedisCommandInterruptedException}, the AWS SDK's
	 * {@code AbortedException}), matched by name so that this class needs none of them.
	 */
	private static boolean isInterruption(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InterruptedException || cause instanceof java.io.InterruptedIOException
					|| cause.getClass().getSimpleName().contains("Interrupted")
					|| cause.getClass().getSimpleName().equals("AbortedException")) {
				return true;
			}
		}
		return false;
	}

	/** A lease stopped being held, released or lost: forget it, note its hold time. */
	void finished(StoreLease lease) {
		if (this.held.remove(lease)) {
			this.holdTimes.released(lease.name(), lease.acquiredAtNanos());
		}
	}

	void released(StoreLease lease, boolean owned) {
		notifyListeners((listener) -> listener.released(lease, owned));
	}

	void renewed(StoreLease lease) {
		notifyListeners((listener) -> listener.renewed(lease));
	}

	void lost(StoreLease lease, String reason) {
		notifyListeners((listener) -> listener.lost(lease, reason));
		ApplicationEventPublisher publisher = this.eventPublisher;
		if (publisher != null) {
			publisher.publishEvent(new LockLostEvent(lease.key(), reason));
		}
	}

	private void notifyListeners(Consumer<LockListener> call) {
		if (this.listeners.isEmpty()) {
			return;
		}
		for (LockListener listener : this.listeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock listener " + listener + " failed", ex);
			}
		}
	}

	/**
	 * Return the name under which a lock with these options is reported.
	 * @param options the options
	 * @return the options' name, or {@link #UNNAMED}
	 */
	static String nameOf(LockOptions options) {
		String name = options.getName();
		return (name != null) ? name : UNNAMED;
	}

	/**
	 * Return the kind of a store, as {@link #getStoreName()} reports it.
	 * @param store the store
	 * @return the kind, such as {@code redis} or {@code memory}
	 */
	public static String storeNameOf(LockStore store) {
		Assert.notNull(store, "'store' must not be null");
		if (store instanceof InMemoryLockStore) {
			return "memory";
		}
		String name = store.getClass().getSimpleName();
		for (String suffix : new String[] { "LockStore", "Store" }) {
			if (name.endsWith(suffix) && name.length() > suffix.length()) {
				name = name.substring(0, name.length() - suffix.length());
				break;
			}
		}
		return name.toLowerCase(Locale.ROOT);
	}

	/**
	 * Intervals that double from {@code firstMillis} up to {@code maxMillis}, each moved
	 * at random by up to a fifth, so that waiters on one key do not poll in step.
	 */
	private static BackOff polls(long firstMillis, long maxMillis) {
		ExponentialBackOff polls = new ExponentialBackOff(firstMillis, 2);
		polls.setMaxInterval(maxMillis);
		polls.setJitter(firstMillis / 5);
		return polls;
	}

	/**
	 * One call of {@link #tryAcquire}: one owner token, several store attempts if it
	 * waits. The keys are in store-key order, and are all taken or none.
	 */
	private final class Attempt {

		/** The result before the first try. */
		private static final AcquireReply NOT_TRIED = AcquireReply.held(Duration.ZERO);

		private static final long[] NO_FENCING_TOKENS = new long[0];

		private final List<String> keys;

		private final List<String> storeKeys;

		private final String token;

		private final LockOptions options;

		private AcquireReply result = NOT_TRIED;

		/** The fencing tokens of the keys, once all are acquired. */
		private long[] fencingTokens = NO_FENCING_TOKENS;

		/** The index of the key found held by the last attempt. */
		private int heldIndex;

		/** When the last try was sent: set by the caller before the first. */
		private long sentAt;

		private int tries;

		private boolean waited;

		/** Asked after each wake whether to stop waiting; {@code null} never stops. */
		private @Nullable BooleanSupplier stopWaiting;

		/** Whether {@link #stopWaiting} stopped the wait. */
		private boolean stopped;

		/** Whether an acquired lock becomes a {@link DetachedLease}. */
		private boolean detached;

		/** Whether each try reads the result kept for the key too. */
		private boolean readsResult;

		/** The result kept for the key at the last try, when {@link #readsResult}. */
		private byte @Nullable [] keptResult;

		Attempt(List<String> keys, List<String> storeKeys, String token, LockOptions options) {
			this.keys = keys;
			this.storeKeys = storeKeys;
			this.token = token;
			this.options = options;
		}

		String description() {
			return (this.keys.size() == 1) ? this.keys.get(0) : this.keys.toString();
		}

		boolean tryOnce() {
			if (this.tries++ > 0) {
				this.sentAt = System.nanoTime();
			}
			if (this.keys.size() == 1) {
				return tryOnce(0);
			}
			if (LockTemplate.this.store instanceof MultiKeyLockStore multiKey) {
				MultiKeyAcquireReply all;
				try {
					all = multiKey.tryAcquireAll(this.storeKeys, this.token, this.options.getTtl());
				}
				catch (LockStoreException ex) {
					throw failed(ex, this.keys.size());
				}
				if (all.isAcquired()) {
					this.fencingTokens = all.fencingTokens();
					this.result = AcquireReply.acquired();
					return true;
				}
				this.heldIndex = all.heldIndex();
				this.result = AcquireReply.held(all.holderRemainingTtl());
				return false;
			}
			long[] fencingTokens = new long[this.keys.size()];
			for (int i = 0; i < this.keys.size(); i++) {
				if (!tryOnce(i)) {
					rollBack(i);
					return false;
				}
				fencingTokens[i] = this.result.fencingToken();
			}
			this.fencingTokens = fencingTokens;
			return true;
		}

		/**
		 * Try to acquire the key at {@code index}; a store failure may have granted it,
		 * as may the keys before it.
		 */
		private boolean tryOnce(int index) {
			try {
				// A detached lease is handed to its owner with its fencing token
				if (this.readsResult && LockTemplate.this.store instanceof ResultStoringLockStore results) {
					AcquireReplyWithResult answer = results.tryAcquireReadingResult(this.storeKeys.get(index), this.token,
							this.options.getTtl());
					this.result = answer.acquisition();
					this.keptResult = answer.keptResult();
				}
				else {
					this.result = (this.detached
							&& LockTemplate.this.store instanceof FencingOnDemandLockStore onDemand)
									? onDemand.tryAcquireFenced(this.storeKeys.get(index), this.token,
											this.options.getTtl())
									: LockTemplate.this.store.tryAcquire(this.storeKeys.get(index), this.token,
											this.options.getTtl());
				}
			}
			catch (LockStoreException ex) {
				throw failed(ex, index + 1);
			}
			this.heldIndex = index;
			return this.result.isAcquired();
		}

		/**
		 * Release the keys before {@code count}, taken by this attempt before it found
		 * the next one held; a release that fails is retried in the background.
		 */
		private void rollBack(int count) {
			for (int i = count - 1; i >= 0; i--) {
				try {
					LockTemplate.this.store.release(this.storeKeys.get(i), this.token);
				}
				catch (RuntimeException ex) {
					LockTemplate.this.cleaner.cleanUp(this.keys.get(i), this.storeKeys.get(i), this.token, this.sentAt,
							this.options.getTtl());
				}
			}
		}

		/**
		 * A store call failed: the first {@code count} keys may be held by this attempt.
		 * Release them by token, in the background, or at once after an interrupt.
		 */
		private RuntimeException failed(LockStoreException failure, int count) {
			if (Thread.interrupted() || isInterruption(failure)) {
				return interruptedDuringStoreCall(failure, count);
			}
			for (int i = 0; i < count; i++) {
				LockTemplate.this.cleaner.cleanUp(this.keys.get(i), this.storeKeys.get(i), this.token, this.sentAt,
						this.options.getTtl());
			}
			return failure;
		}

		/**
		 * The store call was cut short by an interrupt, so whether it acquired is
		 * unknown: release by token (with the interrupt flag cleared, so the cleanup
		 * itself is not cut short), then restore the flag. A release that fails is
		 * retried in the background.
		 */
		private LockWaitInterruptedException interruptedDuringStoreCall(LockStoreException failure, int count) {
			try {
				for (int i = 0; i < count; i++) {
					try {
						LockTemplate.this.store.release(this.storeKeys.get(i), this.token);
					}
					catch (RuntimeException ex) {
						failure.addSuppressed(ex);
						LockTemplate.this.cleaner.cleanUp(this.keys.get(i), this.storeKeys.get(i), this.token,
								this.sentAt, this.options.getTtl());
					}
				}
			}
			finally {
				Thread.currentThread().interrupt();
			}
			InterruptedException interruption = new InterruptedException("Interrupted during a lock store call");
			interruption.initCause(failure);
			return new LockWaitInterruptedException(description(), interruption);
		}

		LockAttempt outcome() {
			if (!this.result.isAcquired()) {
				Duration remaining = this.result.holderRemainingTtl();
				return LockAttempt.held(this.keys.get(this.heldIndex), remaining,
						LockTemplate.this.holdTimes.retryAfter(nameOf(this.options), remaining));
			}
			if (this.detached) {
				Instant expiresAt = Instant.now()
					.minusNanos(System.nanoTime() - this.sentAt)
					.plus(this.options.getTtl());
				return LockAttempt.acquired(new DetachedLease(LockTemplate.this.store, this.keys.get(0),
						this.storeKeys.get(0), this.token, this.result.fencingToken(), expiresAt));
			}
			if (this.keys.size() == 1) {
				return LockTemplate.this.outcome(this.keys.get(0), this.storeKeys.get(0), this.token, this.result,
						this.options, this.sentAt);
			}
			List<StoreLease> parts = new ArrayList<>(this.keys.size());
			for (int i = 0; i < this.keys.size(); i++) {
				parts.add(new StoreLease(LockTemplate.this, LockTemplate.this.store, this.keys.get(i),
						this.storeKeys.get(i), this.token, this.fencingTokens[i], this.options, this.sentAt));
			}
			for (StoreLease part : parts) {
				LockTemplate.this.held.add(part);
				notifyListeners((listener) -> listener.acquired(part));
			}
			if (this.options.isRenew()) {
				parts.forEach(LockTemplate.this.renewer::register);
			}
			return LockAttempt.acquired(new MultiStoreLease(LockTemplate.this.store, parts));
		}

		LockAttempt retry() throws InterruptedException {
			long interval = this.options.getRetryInterval().toMillis();
			for (int i = 0; i < this.options.getRetries(); i++) {
				Thread.sleep(interval);
				if (stop() || tryOnce()) {
					break;
				}
			}
			return outcome();
		}

		LockAttempt await() throws InterruptedException {
			long deadline = System.nanoTime() + this.options.getWaitTime().toNanos();
			Semaphore released = new Semaphore(0);
			ReleaseHandoff handoff = handoff(released);
			List<ReleaseNotifyingLockStore.Subscription> subscriptions = subscribe(
					(handoff != null) ? handoff : released::release);
			try {
				BackOffExecution polls = (!subscriptions.isEmpty() ? NOTIFIED_POLLS : POLLED_POLLS).start();
				// Try again first: the holder may have released before the subscription
				// was made.
				boolean acquired = tryWaiting(handoff);
				while (!acquired) {
					long remaining = deadline - System.nanoTime();
					if (remaining <= 0) {
						break;
					}
					long untilExpiry = this.result.holderRemainingTtl().toNanos() + TimeUnit.MILLISECONDS.toNanos(1);
					long poll = TimeUnit.MILLISECONDS.toNanos(polls.nextBackOff());
					released.tryAcquire(Math.min(remaining, Math.min(untilExpiry, poll)), TimeUnit.NANOSECONDS);
					// Several releases may have been announced meanwhile: one try for all
					released.drainPermits();
					ReleaseHandoff.Answer answer = (handoff != null) ? handoff.take() : null;
					if (answer != null && (acquired = accept(answer))) {
						break;
					}
					if (stop()) {
						break;
					}
					// An answer that found the lock held is this wake's try
					acquired = (answer == null) && tryWaiting(handoff);
				}
				return outcome();
			}
			finally {
				subscriptions.forEach(ReleaseNotifyingLockStore.Subscription::close);
				if (handoff != null) {
					handoff.close();
				}
			}
		}

		/**
		 * The listener that acquires for this waiter when a release is announced, if the
		 * store can and the attempt is a plain one on one key; else {@code null}.
		 */
		private @Nullable ReleaseHandoff handoff(Semaphore released) {
			if (this.keys.size() != 1 || this.readsResult || this.detached
					|| !(LockTemplate.this.store instanceof ReleaseNotifyingLockStore notifying)) {
				return null;
			}
			String key = this.keys.get(0);
			String storeKey = this.storeKeys.get(0);
			Duration ttl = this.options.getTtl();
			return new ReleaseHandoff(notifying, storeKey, this.token, ttl, released,
					(sentAt) -> LockTemplate.this.cleaner.cleanUp(key, storeKey, this.token, sentAt, ttl));
		}

		/**
		 * Try while waiting: not while the release listener's attempt runs, whose answer
		 * wakes the waiter instead.
		 */
		private boolean tryWaiting(@Nullable ReleaseHandoff handoff) {
			if (handoff == null) {
				return tryOnce();
			}
			if (!handoff.startWaiterTry()) {
				return false;
			}
			boolean acquired = false;
			try {
				acquired = tryOnce();
				return acquired;
			}
			finally {
				if (!acquired) {
					handoff.endWaiterTry();
				}
			}
		}

		/**
		 * Take the answer of an attempt the release listener made: a grant or a lock
		 * found held, as a try of this waiter; a failure, as a failed store call.
		 */
		private boolean accept(ReleaseHandoff.Answer answer) {
			AcquireReply answered = answer.result();
			if (answered == null) {
				this.sentAt = answer.sentAt();
				throw failed(answer.storeFailure(this.keys.get(0)), 1);
			}
			this.tries++;
			this.sentAt = answer.sentAt();
			this.heldIndex = 0;
			this.result = answered;
			return answered.isAcquired();
		}

		/** Ask {@link #stopWaiting}, after a wake, whether to stop waiting. */
		private boolean stop() {
			this.stopped = this.stopWaiting != null && this.stopWaiting.getAsBoolean();
			return this.stopped;
		}

		/**
		 * Subscribe to the releases of every key: any of them may be the one that blocks
		 * the next attempt.
		 */
		private List<ReleaseNotifyingLockStore.Subscription> subscribe(Runnable listener) {
			if (!(LockTemplate.this.store instanceof ReleaseNotifyingLockStore notifying)) {
				return List.of();
			}
			List<ReleaseNotifyingLockStore.Subscription> subscriptions = new ArrayList<>(this.storeKeys.size());
			for (String storeKey : this.storeKeys) {
				subscriptions.add(notifying.subscribe(storeKey, listener));
			}
			return subscriptions;
		}

	}

}
