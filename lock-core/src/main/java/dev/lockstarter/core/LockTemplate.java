package dev.lockstarter.core;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.observation.DefaultLockAcquireObservationConvention;
import dev.lockstarter.observation.LockAcquireObservationConvention;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

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
 * <b>Waiting</b>: a waiter tries again at once when a
 * {@link dev.lockstarter.store.ReleaseNotifyingLockStore} announces a release of its key,
 * and in any case polls with exponential backoff and jitter (from 100 ms up to 1 s with
 * notifications, from 10 ms up to 500 ms without), never sleeping past the holder's
 * remaining time-to-live or the end of the wait. When the store can
 * {@linkplain dev.lockstarter.store.ReleaseHandoffLockStore#tryAcquireOnRelease acquire
 * from its listener}, the waiter of one key does not wake to try: the store thread that
 * announced the release sends its acquisition, and the waiter is woken with the answer.
 * <p>
 * <b>Renewal and loss</b>: one daemon thread, shared by all leases of this template,
 * extends held locks a third of their time-to-live after their last extension, in one
 * store call per batch of leases due together. A lease is lost when a renewal finds the
 * lock gone, or, renewed or not, at its local deadline: its time-to-live less the
 * {@linkplain #setLossMargin loss margin} after the last acquisition or extension that
 * the store confirmed, counted from when that command was sent. A lost lease logs a WARN,
 * publishes a {@link LockLostEvent} and tells its {@link LossNotifyingLease#whenLost}
 * actions.
 * <p>
 * <b>Failed acquisitions</b>: when the store call of an acquisition fails (a timeout, a
 * connection lost after the request was sent), the store may still have granted the lock.
 * The caller gets the {@link dev.lockstarter.store.LockStoreException} at once, and the
 * lock is released by its owner token in the background, retried until its time-to-live
 * has passed, so that such an orphan does not block its key for its whole time-to-live
 * once the store answers again.
 * <p>
 * <b>Locks for other processes</b>: as {@link DetachedLockOperations}, the template
 * acquires {@link DetachedLease}s for owners outside this JVM, such as the clients of a
 * lock service.
 * <p>
 * <b>Observability</b>: each acquisition is a {@code lock.acquire} observation on the
 * {@link #setObservationRegistry ObservationRegistry} (none by default), and every
 * acquisition, release, renewal and loss is told to the {@link #addListener listeners}.
 * The locks held now are listed by {@link #getHeldLocks()}. The hold times of each lock
 * name feed the {@link LockAttempt#retryAfter() retry-after estimate} of a conflict.
 *
 * @since 0.1.0
 */
public class LockTemplate
		implements LockOperations, DetachedLockOperations, ApplicationEventPublisherAware, DisposableBean {

	/** The default key prefix. */
	public static final String DEFAULT_KEY_PREFIX = "lock:";

	/** The name reported for locks whose options set none. */
	public static final String UNNAMED = LockEvents.UNNAMED;

	private final LockEngine engine;

	private final BlockingWaiter waiter;

	private final @Nullable LockResults results;

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
		this.engine = new LockEngine(store, keyPrefix);
		this.waiter = new BlockingWaiter(this.engine.events());
		ResultStoringLockStore results = this.engine.store().results();
		this.results = (results != null) ? new TemplateResults(this.engine, results, this.waiter) : null;
	}

	/**
	 * Set the registry of the {@code lock.acquire} observations; none by default.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		Assert.notNull(observationRegistry, "'observationRegistry' must not be null");
		this.engine.events().setObservationRegistry(observationRegistry);
	}

	/**
	 * Set the convention of the {@code lock.acquire} observations, replacing
	 * {@link DefaultLockAcquireObservationConvention}.
	 * @param observationConvention the convention, or {@code null} for the default
	 */
	public void setObservationConvention(@Nullable LockAcquireObservationConvention observationConvention) {
		this.engine.events().setObservationConvention(observationConvention);
	}

	/**
	 * Set the loss margin: the share of a lease's time-to-live, counted back from its
	 * end, at which the lease is lost in this JVM unless the store confirmed an extension
	 * sent before it. A tenth by default.
	 * @param ratio the share, above 0 and at most 0.5
	 */
	public void setLossMargin(double ratio) {
		this.engine.setLossMargin(new LossMargin(ratio));
	}

	/**
	 * Add a listener of acquisitions, releases, renewals and losses.
	 * @param listener the listener
	 */
	public void addListener(LockListener listener) {
		Assert.notNull(listener, "'listener' must not be null");
		this.engine.events().addListener(listener);
	}

	/**
	 * Return the kind of store, as reported in meters and observations: the store's
	 * simple class name without {@code LockStore} (or {@code Store}), in lower case
	 * ({@code redis}, {@code memcached}, {@code dynamodb}), and {@code memory} for the
	 * in-memory store.
	 * @return the kind of store
	 */
	public String getStoreName() {
		return this.engine.events().storeName();
	}

	/**
	 * Return the prefix of every store key.
	 * @return the key prefix, may be empty
	 */
	public String getKeyPrefix() {
		return this.engine.storeKeys().prefix();
	}

	/**
	 * Return the locks this template holds now, the longest held first. Locks are listed
	 * from acquisition to release or loss.
	 * @return a snapshot of live views
	 */
	public List<HeldLock> getHeldLocks() {
		return this.engine.events().heldLocks();
	}

	/**
	 * Set the publisher of {@link LockLostEvent}s; without one, lost locks are only
	 * logged.
	 * @param eventPublisher the publisher
	 */
	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher eventPublisher) {
		this.engine.events().setEventPublisher(eventPublisher);
	}

	@Override
	public LockAttempt tryAcquire(String key, LockOptions options) {
		return this.waiter.observed(this.engine.attempt(key, options), null);
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
		return this.waiter.observed(this.engine.attempt(key, options), stopWaiting);
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
		return this.waiter.observed(this.engine.attempt(keys, options), null);
	}

	@Override
	public boolean supports(LockKind kind) {
		Assert.notNull(kind, "'kind' must not be null");
		return this.engine.supports(kind);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Present when the store is a {@link ResultStoringLockStore}.
	 */
	@Override
	public Optional<LockResults> results() {
		return Optional.ofNullable(this.results);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The lock is the same as the one {@link #tryAcquire(String, LockOptions)} takes on
	 * the key, so both exclude each other.
	 */
	@Override
	public LockAttempt tryAcquireDetached(String key, LockOptions options) {
		return this.waiter.observed(this.engine.detachedAttempt(key, options), null);
	}

	@Override
	public boolean extendDetached(String key, String ownerToken, Duration ttl) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		Assert.isTrue(StringUtils.hasText(ownerToken), "'ownerToken' must not be blank");
		LockOptions.checkedTtl(ttl);
		return this.engine.store().store().extend(this.engine.storeKeys().storeKey(key), ownerToken, ttl);
	}

	@Override
	public boolean releaseDetached(String key, String ownerToken) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		Assert.isTrue(StringUtils.hasText(ownerToken), "'ownerToken' must not be blank");
		return this.engine.store().store().release(this.engine.storeKeys().storeKey(key), ownerToken);
	}

	@Override
	public Duration timeToExpiry(String key) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		return this.engine.store().store().timeToExpiry(this.engine.storeKeys().storeKey(key));
	}

	/**
	 * Stop renewing every lease and the renewal thread, and stop cleaning up failed
	 * acquisitions. Held locks then expire at the end of their time-to-live unless
	 * released.
	 */
	@Override
	public void destroy() {
		this.engine.destroy();
	}

	/**
	 * Return the engine this template's acquisitions run on, which a
	 * {@link ReactiveLockTemplate} over it shares.
	 * @return the engine
	 */
	LockEngine engine() {
		return this.engine;
	}

	/**
	 * Return the renewer, for tests.
	 * @return the renewer
	 */
	LeaseRenewer renewer() {
		return this.engine.renewer();
	}

	/**
	 * Return the cleaner of failed acquisitions, for tests.
	 * @return the cleaner
	 */
	OrphanCleaner cleaner() {
		return this.engine.cleaner();
	}

	/**
	 * Return the kind of a store, as {@link #getStoreName()} reports it.
	 * @param store the store
	 * @return the kind, such as {@code redis} or {@code memory}
	 */
	public static String storeNameOf(LockStore store) {
		Assert.notNull(store, "'store' must not be null");
		return StoreCapabilities.nameOf(store);
	}

}
