package dev.lockstarter.store.memcached;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;

/**
 * The value of a lock item: {@code "lock=<millis>:<write>:<token>"}, the lock's
 * time-to-live as a duration in whole milliseconds, rounded up, a number drawn anew for
 * every write (in hexadecimal), and the owner token. It holds no point in time, so no
 * clock's reading is ever written or compared.
 * <p>
 * The write's number is the item's version for the observed-silence rule: it tells a
 * write of this JVM apart from a later write with the same token by another instance (a
 * renewal of a detached lease), which Memcached's CAS value cannot, since a store command
 * does not answer the CAS value it left.
 * <p>
 * Values that the previous version wrote, {@code "ttl=<millis>:<token>"}, are still read:
 * their version is the item's CAS value. The version before that wrote
 * {@code "<expiresAt>:<token>"}; each version reads a format it does not know as an item
 * it did not write, which it never takes over, releases or extends, so during a rolling
 * upgrade a lock of either version is held until its holder releases it or Memcached
 * expires it.
 *
 * @param ttl the holder's time-to-live
 * @param write the number drawn for the write, or {@code null} in the previous format
 * @param token the owner token
 */
record MemcachedLockValue(Duration ttl, @Nullable Long write, String token) {

	private static final String PREFIX = "lock=";

	private static final String PREVIOUS_PREFIX = "ttl=";

	/**
	 * Return the value written for a lock, with a number drawn for this write.
	 * @param ttl the time-to-live, positive
	 * @param token the owner token
	 * @return the value
	 */
	static MemcachedLockValue of(Duration ttl, String token) {
		return new MemcachedLockValue(ttl, ThreadLocalRandom.current().nextLong(), token);
	}

	/**
	 * Return the text stored for this lock.
	 * @return the value, in the current format
	 */
	String encode() {
		long number = (this.write != null) ? this.write : 0;
		return PREFIX + millisRoundedUp(this.ttl) + ":" + Long.toHexString(number) + ":" + this.token;
	}

	/**
	 * Return the lock that a value holds.
	 * @param value the value read, or {@code null} if the item was absent
	 * @return the lock, or {@code null} if the value is absent or not a lock written in
	 * this format or the previous one
	 */
	static @Nullable MemcachedLockValue parse(@Nullable String value) {
		if (value == null) {
			return null;
		}
		boolean current = value.startsWith(PREFIX);
		if (!current && !value.startsWith(PREVIOUS_PREFIX)) {
			return null;
		}
		int start = current ? PREFIX.length() : PREVIOUS_PREFIX.length();
		int separator = value.indexOf(':', start);
		if (separator <= start) {
			return null;
		}
		try {
			long millis = Long.parseLong(value, start, separator, 10);
			if (millis <= 0) {
				return null;
			}
			if (!current) {
				return new MemcachedLockValue(Duration.ofMillis(millis), null, value.substring(separator + 1));
			}
			int writeEnd = value.indexOf(':', separator + 1);
			if (writeEnd <= separator + 1) {
				return null;
			}
			long write = Long.parseUnsignedLong(value, separator + 1, writeEnd, 16);
			return new MemcachedLockValue(Duration.ofMillis(millis), write, value.substring(writeEnd + 1));
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * Return the version of the item holding this value, for the observed-silence rule.
	 * @param cas the item's CAS value, as read
	 * @return the write's number, or the CAS value for a value of the previous format
	 */
	long version(long cas) {
		return (this.write != null) ? this.write : cas;
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
