package dev.lockstarter.store.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The values the etcd store writes, and the comparisons that test them inside a
 * transaction.
 * <p>
 * A lock's value is the owner token, a NUL byte and the lock's time-to-live in
 * milliseconds as {@value #DIGITS} decimal digits, zero-padded: {@code <token>\0<ttl>}.
 * The time-to-live is a duration, never a point in time: a contender judges it by how
 * long it has seen the record unchanged ({@link dev.lockstarter.store.ObservedExpiry}),
 * so no wall clock is written or read for a lock. A result's value is the result's expiry
 * time in epoch milliseconds in the same form, then the result's bytes: results expire on
 * the wall clock, as they are not mutual exclusion.
 * <p>
 * Because the token comes first, "held by {@code token}" is a range of values:
 * {@code value > token} and {@code value < token\1}, that is every value that starts with
 * {@code token\0}. Both are etcd value comparisons, so release, extend and the storing of
 * a result test ownership inside their transaction without reading the lock first. A
 * token never contains a NUL byte, so no other token's values fall in the range.
 */
final class EtcdValues {

	static final int DIGITS = 16;

	/**
	 * The longest time-to-live read from a value, so that a time-to-live counts in
	 * nanoseconds without overflow. A value written by a version of this store that wrote
	 * an expiry time (epoch milliseconds) in the same place reads as a time-to-live of
	 * decades: such a key counts as held until its holder releases it or etcd deletes it
	 * at the end of its lease.
	 */
	static final Duration MAX_TTL = Duration.ofDays(100 * 365);

	private static final byte SEPARATOR = 0;

	private EtcdValues() {
	}

	static ByteSequence lockValue(String token, long ttlMillis) {
		return ByteSequence.from(join(tokenBytes(token), SEPARATOR, ttlMillis));
	}

	/**
	 * Return the owner token written in a lock's value: its bytes up to the first NUL
	 * byte, or the whole value if it has none.
	 */
	static String owner(ByteSequence lockValue) {
		byte[] bytes = lockValue.getBytes();
		return new String(bytes, 0, separatorIndex(bytes), StandardCharsets.UTF_8);
	}

	/**
	 * Return the time-to-live written in a lock's value, at most {@link #MAX_TTL}, or
	 * zero if the value holds none that can be read (no store writes such a value).
	 */
	static Duration ttl(ByteSequence lockValue) {
		byte[] bytes = lockValue.getBytes();
		int separator = separatorIndex(bytes);
		if (bytes.length != separator + 1 + DIGITS) {
			return Duration.ZERO;
		}
		long millis = parse(bytes, separator + 1);
		return (millis < 0) ? Duration.ZERO : Duration.ofMillis(Math.min(millis, MAX_TTL.toMillis()));
	}

	/**
	 * Return whether a lock's value names {@code token} as its owner.
	 */
	static boolean isOwnedBy(ByteSequence lockValue, String token) {
		byte[] bytes = lockValue.getBytes();
		byte[] owner = tokenBytes(token);
		return bytes.length == owner.length + 1 + DIGITS
				&& Arrays.equals(bytes, 0, owner.length, owner, 0, owner.length) && bytes[owner.length] == SEPARATOR;
	}

	/**
	 * Return the comparisons, on the lock key, that hold when the lock is held by
	 * {@code token}: its value is in {@code [token\0, token\1)}. Time plays no part.
	 */
	static Cmp[] heldBy(ByteSequence lockKey, String token) {
		byte[] owner = tokenBytes(token);
		byte[] upperBound = Arrays.copyOf(owner, owner.length + 1);
		upperBound[owner.length] = SEPARATOR + 1;
		return new Cmp[] { new Cmp(lockKey, Cmp.Op.GREATER, CmpTarget.value(ByteSequence.from(owner))),
				new Cmp(lockKey, Cmp.Op.LESS, CmpTarget.value(ByteSequence.from(upperBound))) };
	}

	/**
	 * Return the comparisons that hold when the lock is held by {@code token} and is not
	 * at the revision {@code outlived}: a write of this store's that outlived its
	 * time-to-live by its own count, which anyone may take over. A later write with the
	 * same token (a renewal on another instance) has another revision.
	 */
	static Cmp[] heldBy(ByteSequence lockKey, String token, @Nullable Long outlived) {
		Cmp[] held = heldBy(lockKey, token);
		if (outlived == null) {
			return held;
		}
		Cmp[] conditions = Arrays.copyOf(held, held.length + 1);
		conditions[held.length] = new Cmp(lockKey, Cmp.Op.NOT_EQUAL, CmpTarget.modRevision(outlived));
		return conditions;
	}

	static ByteSequence resultValue(byte[] result, long expiresAt) {
		byte[] value = new byte[DIGITS + result.length];
		writeDigits(value, 0, expiresAt);
		System.arraycopy(result, 0, value, DIGITS, result.length);
		return ByteSequence.from(value);
	}

	/**
	 * Return the result held in a result's value, or {@code null} if it expired at
	 * {@code now}.
	 */
	static byte @Nullable [] result(ByteSequence resultValue, long now) {
		byte[] bytes = resultValue.getBytes();
		if (bytes.length < DIGITS || parse(bytes, 0) <= now) {
			return null;
		}
		return Arrays.copyOfRange(bytes, DIGITS, bytes.length);
	}

	private static byte[] tokenBytes(String token) {
		Assert.notNull(token, "'token' must not be null");
		Assert.isTrue(token.indexOf(SEPARATOR) < 0, "'token' must not contain a NUL character");
		return token.getBytes(StandardCharsets.UTF_8);
	}

	private static int separatorIndex(byte[] bytes) {
		for (int i = 0; i < bytes.length; i++) {
			if (bytes[i] == SEPARATOR) {
				return i;
			}
		}
		return bytes.length;
	}

	private static byte[] join(byte[] owner, byte separator, long number) {
		byte[] value = new byte[owner.length + 1 + DIGITS];
		System.arraycopy(owner, 0, value, 0, owner.length);
		value[owner.length] = separator;
		writeDigits(value, owner.length + 1, number);
		return value;
	}

	private static void writeDigits(byte[] target, int offset, long value) {
		long remaining = Math.max(0, value);
		for (int i = offset + DIGITS - 1; i >= offset; i--) {
			target[i] = (byte) ('0' + remaining % 10);
			remaining /= 10;
		}
	}

	/**
	 * Parse the {@value #DIGITS} digits at {@code offset}, or return -1 if any is not a
	 * digit.
	 */
	private static long parse(byte[] bytes, int offset) {
		long value = 0;
		for (int i = offset; i < offset + DIGITS; i++) {
			int digit = bytes[i] - '0';
			if (digit < 0 || digit > 9) {
				return -1;
			}
			value = value * 10 + digit;
		}
		return value;
	}

}
