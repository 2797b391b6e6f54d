package dev.lockstarter.store;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * A lock as an {@link InspectableLockStore} lists it.
 *
 * @param key the full store key
 * @param token the holder's owner token
 * @param timeToExpiry the time left before the lock expires unless it is renewed: counted
 * by the store, or, for a store whose locks a contender expires, the time-to-live the
 * holder last wrote, an upper bound; zero or more
 * @param fencingToken the lock's fencing token, or {@link AcquireReply#NO_FENCING_TOKEN}
 * if the store issues none or has not drawn it
 * @since 0.1.0
 */
public record StoredLock(String key, String token, Duration timeToExpiry, long fencingToken) {

	public StoredLock {
		Assert.hasText(key, "'key' must not be blank");
		Assert.hasText(token, "'token' must not be blank");
		Assert.isTrue(!timeToExpiry.isNegative(), "'timeToExpiry' must not be negative");
	}

}
