package dev.lockstarter.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.lockstarter.store.AcquireResult;
import dev.lockstarter.store.LockStore;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * Default {@link LockOperations}: adds the key prefix, draws a fresh random owner token for
 * every acquisition and delegates to a {@link LockStore}.
 * <p>
 * Store keys are {@code prefix + key}; keys whose store key would exceed 250 bytes of UTF-8 are
 * replaced by the SHA-256 of the key, Base64 URL-encoded. Owner tokens are 128 random bits from
 * a {@link java.security.SecureRandom}; they are never derived from a thread, are never logged
 * and never leave the store.
 *
 * @since 0.1.0
 */
public class LockTemplate implements LockOperations {

	/** The default key prefix. */
	public static final String DEFAULT_KEY_PREFIX = "lock:";

	private static final Log logger = LogFactory.getLog(LockTemplate.class);

	private final LockStore store;

	private final StoreKeys storeKeys;

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
	}

	@Override
	public LockAttempt tryAcquire(String key, Duration ttl) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		Assert.notNull(ttl, "'ttl' must not be null");
		Assert.isTrue(!ttl.isNegative() && !ttl.isZero(), () -> "'ttl' must be positive, was " + ttl);
		String storeKey = this.storeKeys.storeKey(key);
		String token = OwnerTokens.next();
		AcquireResult result = this.store.tryAcquire(storeKey, token, ttl);
		if (result.isAcquired()) {
			return LockAttempt.acquired(new StoreLease(this.store, key, storeKey, token));
		}
		return LockAttempt.held(key, result.holderRemainingTtl());
	}

	/**
	 * A lease on one acquisition; released at most once.
	 */
	private static final class StoreLease implements Lease {

		private final LockStore store;

		private final String key;

		private final String storeKey;

		private final String token;

		private final AtomicBoolean released = new AtomicBoolean();

		StoreLease(LockStore store, String key, String storeKey, String token) {
			this.store = store;
			this.key = key;
			this.storeKey = storeKey;
			this.token = token;
		}

		@Override
		public String key() {
			return this.key;
		}

		@Override
		public boolean release() {
			if (!this.released.compareAndSet(false, true)) {
				return false;
			}
			boolean deleted = this.store.release(this.storeKey, this.token);
			if (!deleted && logger.isWarnEnabled()) {
				logger.warn("Lock '" + this.key + "' had expired or was taken over before its release; "
						+ "the guarded work ran longer than the lock's time-to-live");
			}
			return deleted;
		}

		@Override
		public void close() {
			try {
				release();
			}
			catch (LockStoreException ex) {
				logger.warn("Failed to release lock '" + this.key + "'; it expires at the end of its time-to-live",
						ex);
			}
		}

		@Override
		public String toString() {
			return "Lease[" + this.key + "]";
		}

	}

}
