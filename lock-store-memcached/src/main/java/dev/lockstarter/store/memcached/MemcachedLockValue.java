package dev.lockstarter.store.memcached;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The value of a lock item: {@code "ttl=<millis>:<token>"}, the owner token and the
 * lock's time-to-live as a duration in whole milliseconds, rounded up. It holds no point
 * in time, so no clock's reading is ever written or compared.
 * <p>
 * The {@code "ttl="} prefix keeps this format apart from the one that earlier versions
 * wrote, {@code "<expiresAt>:<token>"}: each reads the other's values as items it did not
 * write, which it never takes over, releases or extends, so during a rolling upgrade a
 * lock of either version is held until its holder releases it or Memcached expires it.
 *
 * @param ttl the holder's time-to-live
 * @param token the owner token
 */
record MemcachedLockValue(Duration ttl, String token) {

	private static final String PREFIX = "ttl=";

	/**
	 * Return the value written for a lock.
	 * @param ttl the time-to-live, positive
	 * @param token the owner token
	 * @return the value
	 */
	static String encode(Duration ttl, String token) {
		return PREFIX + millisRoundedUp(ttl) + ":" + token;
	}

	/**
	 * Return the lock that a value holds.
	 * @param value the value read, or {@code null} if the item was absent
	 * @return the lock, or {@code null} if the value is absent or not a lock written in
	 * this format
	 */
	static @Nullable MemcachedLockValue parse(@Nullable String value) {
		if (value == null || !value.startsWith(PREFIX)) {
			return null;
		}
		int separator = value.indexOf(':', PREFIX.length());
		if (separator <= PREFIX.length()) {
			return null;
		}
		try {
			long millis = Long.parseLong(value, PREFIX.length(), separator, 10);
			return (millis > 0) ? new MemcachedLockValue(Duration.ofMillis(millis), value.substring(separator + 1))
					: null;
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * Return whether this lock is the given owner's.
	 * @param owner the owner token
	 * @return {@code true} if the token is the owner's
	 */
	boolean isOwnedBy(String owner) {
		return this.token.equals(owner);
	}

	/**
	 * The time-to-live in milliseconds, rounded up so that a contender that reads it
	 * never counts less than the holder does.
	 */
	private static long millisRoundedUp(Duration ttl) {
		long millis = ttl.toMillis();
		return (ttl.minusMillis(millis).isZero()) ? millis : millis + 1;
	}

}
