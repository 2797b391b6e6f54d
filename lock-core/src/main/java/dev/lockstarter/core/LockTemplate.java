package dev.lockstarter.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireResult;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
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
 * never sleeping past the holder's remaining time-to-live or the end of the wait.
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
 *
 * @since 0.1.0
 */
public class LockTemplate implements LockOperations, ApplicationEventPublisherAware, DisposableBean {

	/** The default key prefix. */
	public static final String DEFAULT_KEY_PREFIX = "lock:";

	/** Polls while release notifications may wake the waiter: a safety net. */
	private static final BackOff NOTIFIED_POLLS = polls(100, 1000);

	/** Polls of a store without release notifications. */
	private static final BackOff POLLED_POLLS = polls(10, 500);

	private final LockStore store;

	private final StoreKeys storeKeys;

	private final LeaseRenewer renewer;

	private final OrphanCleaner cleaner;

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
		this.renewer = new LeaseRenewer(store);
		this.cleaner = new OrphanCleaner(store);
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
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		Assert.notNull(options, "'options' must not be null");
		String storeKey = this.storeKeys.storeKey(key);
		Attempt attempt = new Attempt(key, storeKey, OwnerTokens.next(), options);
		if (attempt.tryOnce() || (options.getWaitTime().isZero() && options.getRetries() == 0)) {
			return attempt.outcome();
		}
		try {
			return (options.getRetries() > 0) ? attempt.retry() : attempt.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockWaitInterruptedException(key, ex);
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

	void lost(StoreLease lease, String reason) {
		ApplicationEventPublisher publisher = this.eventPublisher;
		if (publisher != null) {
			publisher.publishEvent(new LockLostEvent(lease.key(), reason));
		}
	}

	/**
	 * One call of {@link #tryAcquire}: one owner token, several store attempts if it
	 * waits.
	 */

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

	private final class Attempt {

		private final String key;

		private final String storeKey;

		private final String token;

		private final LockOptions options;

		private AcquireResult result = AcquireResult.held(Duration.ZERO);

		private long sentAt;

		Attempt(String key, String storeKey, String token, LockOptions options) {
			this.key = key;
			this.storeKey = storeKey;
			this.token = token;
			this.options = options;
		}

		boolean tryOnce() {
			this.sentAt = System.nanoTime();
			try {
				this.result = LockTemplate.this.store.tryAcquire(this.storeKey, this.token, this.options.getTtl());
			}
			catch (LockStoreException ex) {
				if (Thread.interrupted() || isInterruption(ex)) {
					throw interruptedDuringStoreCall(ex);
				}
				// The store may have granted the lock before the call failed
				LockTemplate.this.cleaner.cleanUp(this.key, this.storeKey, this.token, this.sentAt,
						this.options.getTtl());
				throw ex;
			}
			return this.result.isAcquired();
		}

		/**
		 * The store call was cut short by an interrupt, so whether it acquired is
		 * unknown: release by token (with the interrupt flag cleared, so the cleanup
		 * itself is not cut short), then restore the flag. A release that fails is
		 * retried in the background.
		 */
		private LockWaitInterruptedException interruptedDuringStoreCall(LockStoreException failure) {
			try {
				LockTemplate.this.store.release(this.storeKey, this.token);
			}
			catch (RuntimeException ex) {
				failure.addSuppressed(ex);
				LockTemplate.this.cleaner.cleanUp(this.key, this.storeKey, this.token, this.sentAt,
						this.options.getTtl());
			}
			finally {
				Thread.currentThread().interrupt();
			}
			InterruptedException interruption = new InterruptedException("Interrupted during a lock store call");
			interruption.initCause(failure);
			return new LockWaitInterruptedException(this.key, interruption);
		}

		LockAttempt outcome() {
			if (!this.result.isAcquired()) {
				return LockAttempt.held(this.key, this.result.holderRemainingTtl());
			}
			StoreLease lease = new StoreLease(LockTemplate.this, LockTemplate.this.store, this.key, this.storeKey,
					this.token, this.result.fencingToken(), this.options, this.sentAt);
			if (this.options.isRenew()) {
				LockTemplate.this.renewer.register(lease);
			}
			return LockAttempt.acquired(lease);
		}

		LockAttempt retry() throws InterruptedException {
			long interval = this.options.getRetryInterval().toMillis();
			for (int i = 0; i < this.options.getRetries(); i++) {
				Thread.sleep(interval);
				if (tryOnce()) {
					break;
				}
			}
			return outcome();
		}

		LockAttempt await() throws InterruptedException {
			long deadline = System.nanoTime() + this.options.getWaitTime().toNanos();
			Semaphore released = new Semaphore(0);
			ReleaseNotifyingLockStore.Subscription subscription = subscribe(released);
			try {
				BackOffExecution polls = ((subscription != null) ? NOTIFIED_POLLS : POLLED_POLLS).start();
				// Try again first: the holder may have released before the subscription
				// was made.
				while (!tryOnce()) {
					long remaining = deadline - System.nanoTime();
					if (remaining <= 0) {
						break;
					}
					long untilExpiry = this.result.holderRemainingTtl().toNanos() + TimeUnit.MILLISECONDS.toNanos(1);
					long poll = TimeUnit.MILLISECONDS.toNanos(polls.nextBackOff());
					released.tryAcquire(Math.min(remaining, Math.min(untilExpiry, poll)), TimeUnit.NANOSECONDS);
				}
				return outcome();
			}
			finally {
				if (subscription != null) {
					subscription.close();
				}
			}
		}

		private ReleaseNotifyingLockStore.@Nullable Subscription subscribe(Semaphore released) {
			if (LockTemplate.this.store instanceof ReleaseNotifyingLockStore notifying) {
				return notifying.subscribe(this.storeKey, released::release);
			}
			return null;
		}

	}

}
