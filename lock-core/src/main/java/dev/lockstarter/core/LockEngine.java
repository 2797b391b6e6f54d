package dev.lockstarter.core;

import java.util.Collection;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.SharedLockStore;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * The parts that the acquisitions of one {@link LockTemplate} share, and that its
 * {@link ReactiveLockTemplate} shares too: the store's capabilities, the store keys, the
 * events, the renewer, the deadlines and the cleaner of failed acquisitions. It makes the
 * {@link AcquisitionAttempt}s.
 */
final class LockEngine {

	private static final Log logger = LogFactory.getLog(LockEngine.class);

	private final StoreCapabilities store;

	private final StoreKeys storeKeys;

	private final LeaseServices services;

	private final KeyAcquirer plain;

	private volatile LossMargin lossMargin = LossMargin.DEFAULT;

	/** The places of the store's shared locks, if it keeps such locks. */
	private final @Nullable StoreCapabilities shared;

	LockEngine(LockStore store, String keyPrefix) {
		this.store = new StoreCapabilities(store);
		this.storeKeys = new StoreKeys(keyPrefix);
		LockEvents events = new LockEvents(this.store.name());
		this.services = new LeaseServices(events, new LeaseRenewer(events.held()), new LeaseDeadlines(events.held()),
				new OrphanCleaner(), () -> this.lossMargin);
		this.plain = KeyAcquirer.plain(store);
		this.shared = this.store.sharedView();
	}

	StoreCapabilities store() {
		return this.store;
	}

	/**
	 * Whether the store keeps locks of this kind: every store keeps mutexes, a
	 * {@link SharedLockStore} permits and read/write locks too.
	 * @param kind the kind
	 * @return whether an attempt of that kind can be made
	 */
	boolean supports(LockKind kind) {
		return kind.isMutex() || this.shared != null;
	}

	StoreKeys storeKeys() {
		return this.storeKeys;
	}

	LockEvents events() {
		return this.services.events();
	}

	LeaseRenewer renewer() {
		return this.services.renewer();
	}

	void setLossMargin(LossMargin lossMargin) {
		this.lossMargin = lossMargin;
	}

	OrphanCleaner cleaner() {
		return this.services.cleaner();
	}

	/**
	 * A plain attempt on one key, its arguments checked.
	 * @param key the key
	 * @param options the options
	 * @return the attempt
	 */
	AcquisitionAttempt attempt(String key, LockOptions options) {
		Assert.notNull(options, "'options' must not be null");
		LockKind kind = options.getKind();
		if (kind.isMutex()) {
			return attempt(key, options, this.plain, LeaseKind.HELD);
		}
		StoreCapabilities shared = this.shared;
		SharedLockStore sharedStore = this.store.shared();
		if (shared == null || sharedStore == null) {
			throw new UnsupportedOperationException("Lock store " + this.store.store().getClass().getName()
					+ " keeps no permits or read/write locks: it cannot take a lock of kind " + kind);
		}
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		return new AcquisitionAttempt(this.services, shared, List.of(key), List.of(this.storeKeys.storeKey(key)),
				options, KeyAcquirer.shared(sharedStore, options), LeaseKind.HELD);
	}

	/**
	 * An attempt on one key, its arguments checked.
	 * @param key the key
	 * @param options the options
	 * @param acquirer how the key is asked for
	 * @param leaseKind what a grant becomes
	 * @return the attempt
	 */
	AcquisitionAttempt attempt(String key, LockOptions options, KeyAcquirer acquirer, LeaseKind leaseKind) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		Assert.notNull(options, "'options' must not be null");
		Assert.isTrue(options.getKind().isMutex(), () -> "A lock of kind " + options.getKind() + " cannot be "
				+ ((leaseKind == LeaseKind.DETACHED) ? "detached" : "taken with a kept result"));
		return new AcquisitionAttempt(this.services, this.store, List.of(key), List.of(this.storeKeys.storeKey(key)),
				options, acquirer, leaseKind);
	}

	/**
	 * An attempt for a {@link DetachedLease} on one key: fenced, never renewed, and with
	 * no minimum or maximum hold.
	 * @param key the key
	 * @param options the options
	 * @return the attempt
	 */
	AcquisitionAttempt detachedAttempt(String key, LockOptions options) {
		Assert.notNull(options, "'options' must not be null");
		Assert.isTrue(options.getHoldAtLeast().isZero() && options.getMaxHold() == null,
				"A detached lease has no minimum or maximum hold");
		return attempt(key, options.withRenewal(false), KeyAcquirer.fenced(this.store), LeaseKind.DETACHED);
	}

	/**
	 * A plain attempt on several keys, deduplicated and sorted by their store keys, its
	 * arguments checked.
	 * @param keys the keys
	 * @param options the options
	 * @return the attempt
	 */
	AcquisitionAttempt attempt(Collection<String> keys, LockOptions options) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		Assert.notNull(options, "'options' must not be null");
		Assert.isTrue(options.getKind().isMutex(),
				() -> "A lock of kind " + options.getKind() + " takes one key; several keys take mutexes only");
		SortedMap<String, String> byStoreKey = new TreeMap<>();
		for (String key : keys) {
			Assert.isTrue(StringUtils.hasText(key), "'keys' must not contain a blank key");
			byStoreKey.putIfAbsent(this.storeKeys.storeKey(key), key);
		}
		return new AcquisitionAttempt(this.services, this.store, List.copyOf(byStoreKey.values()),
				List.copyOf(byStoreKey.keySet()), options, this.plain, LeaseKind.HELD);
	}

	/**
	 * Stop renewing, watching deadlines and cleaning up. Leases still held are not
	 * released, since the work they guard may still run: they expire with their
	 * time-to-live, and a WARN names them.
	 */
	void destroy() {
		this.services.renewer().shutdown();
		this.services.deadlines().shutdown();
		this.services.cleaner().shutdown();
		List<HeldLock> held = this.services.events().heldLocks();
		if (!held.isEmpty()) {
			logger.warn(held.size() + " lock(s) still held when the lock template was destroyed are no longer "
					+ "renewed and expire within their time-to-live: "
					+ held.stream()
						.map((lock) -> "'" + lock.name() + "' (" + lock.timeToExpiry().toMillis() + " ms left)")
						.collect(Collectors.joining(", ")));
		}
	}

}
