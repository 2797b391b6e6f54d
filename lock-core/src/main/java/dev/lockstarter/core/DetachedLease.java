package dev.lockstarter.core;

import java.time.Duration;
import java.time.Instant;

import org.springframework.util.Assert;

/**
 * A lease this JVM hands over to an owner outside it, such as the client of a lock
 * service: whoever has its {@linkplain #ownerToken() owner token} owns the lock, and any
 * instance that shares the store can extend or release it by key and token
 * ({@link DetachedLockOperations#extendDetached},
 * {@link DetachedLockOperations#releaseDetached}). The template does not renew it, does
 * not list it among its held locks, and does not tell its listeners of its release; the
 * lock ends when its owner releases it or its time-to-live passes.
 *
 * @since 0.1.0
 * @see DetachedLockOperations#tryAcquireDetached(String, LockOptions)
 */
public final class DetachedLease implements Lease {

	private final StoreCapabilities store;

	private final String key;

	private final String storeKey;

	private final String ownerToken;

	private final long fencingToken;

	private final LossMargin lossMargin;

	/**
	 * The local deadline, on {@link System#nanoTime()}: the time-to-live, less the loss
	 * margin, after the acquisition or extension last confirmed was sent.
	 */
	private volatile long lossAt;

	DetachedLease(StoreCapabilities store, String key, String storeKey, String ownerToken, long fencingToken,
			long sentAt, Duration ttl, LossMargin lossMargin) {
		this.store = store;
		this.key = key;
		this.storeKey = storeKey;
		this.ownerToken = ownerToken;
		this.fencingToken = fencingToken;
		this.lossMargin = lossMargin;
		this.lossAt = lossMargin.deadline(sentAt, ttl.toNanos());
	}

	@Override
	public String key() {
		return this.key;
	}

	/**
	 * Return the owner token: 128 random bits, Base64 URL-encoded. It is the only proof
	 * of ownership, so hand it only to the owner, and never log it.
	 * @return the owner token
	 */
	public String ownerToken() {
		return this.ownerToken;
	}

	@Override
	public long fencingToken() {
		return this.fencingToken;
	}

	/**
	 * Return until when the owner may rely on the lock unless it is extended: its local
	 * deadline, the time-to-live less the loss margin after the acquisition or extension
	 * last confirmed was sent, counted on this JVM's monotonic clock and told as a point
	 * on its wall clock (read now), so never later than the store's expiry, whatever the
	 * wall clock does meanwhile.
	 * @return the local deadline
	 */
	public Instant expiresAt() {
		return Instant.now().plusNanos(this.lossAt - System.nanoTime());
	}

	/**
	 * Whether the lock's local deadline has not passed, on this JVM's monotonic clock; it
	 * may have been released elsewhere meanwhile.
	 */
	@Override
	public boolean isHeld() {
		return System.nanoTime() - this.lossAt < 0;
	}

	@Override
	public boolean putResult(byte[] result, Duration ttl) {
		return KeptResults.put(this.store, this.storeKey, this.ownerToken, result, ttl);
	}

	/**
	 * Extend the lock by key and owner token, as
	 * {@link DetachedLockOperations#extendDetached} does. A detached lease has no minimum
	 * hold: {@code holdAtLeast} must be zero.
	 */
	@Override
	public boolean extend(Duration ttl, Duration holdAtLeast) {
		LeaseTimes.checkExtension(ttl, holdAtLeast);
		Assert.isTrue(holdAtLeast.isZero(), "A detached lease has no minimum hold: 'holdAtLeast' must be zero");
		long sentAt = System.nanoTime();
		boolean owned = this.store.store().extend(this.storeKey, this.ownerToken, ttl);
		if (owned) {
			this.lossAt = this.lossMargin.deadline(sentAt, ttl.toNanos());
		}
		return owned;
	}

	@Override
	public boolean release() {
		return this.store.store().release(this.storeKey, this.ownerToken);
	}

	@Override
	public void close() {
		release();
	}

	@Override
	public String toString() {
		return "DetachedLease[" + this.key + ", expires at " + expiresAt() + "]";
	}

}
