package dev.lockstarter.store.etcd;

import java.nio.charset.StandardCharsets;
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
 * A lock's value is the owner token, a NUL byte and the expiry time in epoch milliseconds
 * as {@value #EXPIRY_DIGITS} decimal digits, zero-padded: {@code <token>\0<expiry>}. A
 * result's value is the result's expiry time in the same form, then the result's bytes.
 * <p>
 * Because the token comes first and the digits have a fixed width, "held by {@code token}
 * and not expired at {@code now}" is a range of values: {@code value > token\0(now-1)}
 * and {@code value < token\1}. Both are etcd value comparisons, so release, extend and
 * the storing of a result test ownership inside their transaction without reading the
 * lock first. A token never contains a NUL byte, so no other token's values fall in the
 * range.
 */
final class EtcdValues {

	static final int EXPIRY_DIGITS = 16;

	private static final byte SEPARATOR = 0;

	private EtcdValues() {
	}

	static ByteSequence lockValue(String token, long expiresAt) {
		return ByteSequence.from(join(tokenBytes(token), SEPARATOR, expiresAt));
	}

	/**
	 * Return the expiry time written in a lock's value.
	 */
	static long expiresAt(ByteSequence lockValue) {
		byte[] bytes = lockValue.getBytes();
		if (bytes.length < EXPIRY_DIGITS + 1) {
			return 0;
		}
		return parse(bytes, bytes.length - EXPIRY_DIGITS);
	}

	/**
	 * Return whether a lock's value names {@code token} as its owner.
	 */
	static boolean isOwnedBy(ByteSequence lockValue, String token) {
		byte[] bytes = lockValue.getBytes();
		byte[] owner = tokenBytes(token);
		return bytes.length == owner.length + 1 + EXPIRY_DIGITS
				&& Arrays.equals(bytes, 0, owner.length, owner, 0, owner.length) && bytes[owner.length] == SEPARATOR;
	}

	/**
	 * Return the comparisons, on the lock key, that hold when the lock is held by
	 * {@code token} and has not expired at {@code now}.
	 */
	static Cmp[] heldBy(ByteSequence lockKey, String token, long now) {
		byte[] owner = tokenBytes(token);
		ByteSequence lowerBound = ByteSequence.from(join(owner, SEPARATOR, now - 1));
		byte[] upperBound = Arrays.copyOf(owner, owner.length + 1);
		upperBound[owner.length] = SEPARATOR + 1;
		return new Cmp[] { new Cmp(lockKey, Cmp.Op.GREATER, CmpTarget.value(lowerBound)),
				new Cmp(lockKey, Cmp.Op.LESS, CmpTarget.value(ByteSequence.from(upperBound))) };
	}

	static ByteSequence resultValue(byte[] result, long expiresAt) {
		byte[] value = new byte[EXPIRY_DIGITS + result.length];
		writeDigits(value, 0, expiresAt);
		System.arraycopy(result, 0, value, EXPIRY_DIGITS, result.length);
		return ByteSequence.from(value);
	}

	/**
	 * Return the result held in a result's value, or {@code null} if it expired at
	 * {@code now}.
	 */
	static byte @Nullable [] result(ByteSequence resultValue, long now) {
		byte[] bytes = resultValue.getBytes();
		if (bytes.length < EXPIRY_DIGITS || parse(bytes, 0) <= now) {
			return null;
		}
		return Arrays.copyOfRange(bytes, EXPIRY_DIGITS, bytes.length);
	}

	private static byte[] tokenBytes(String token) {
		Assert.notNull(token, "'token' must not be null");
		Assert.isTrue(token.indexOf(SEPARATOR) < 0, "'token' must not contain a NUL character");
		return token.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] join(byte[] owner, byte separator, long expiresAt) {
		byte[] value = new byte[owner.length + 1 + EXPIRY_DIGITS];
		System.arraycopy(owner, 0, value, 0, owner.length);
		value[owner.length] = separator;
		writeDigits(value, owner.length + 1, expiresAt);
		return value;
	}

	private static void writeDigits(byte[] target, int offset, long value) {
		long remaining = Math.max(0, value);
		for (int i = offset + EXPIRY_DIGITS - 1; i >= offset; i--) {
			target[i] = (byte) ('0' + remaining % 10);
			remaining /= 10;
		}
	}

	private static long parse(byte[] bytes, int offset) {
		long value = 0;
		for (int i = offset; i < offset + EXPIRY_DIGITS; i++) {
			int digit = bytes[i] - '0';
			if (digit < 0 || digit > 9) {
				return 0;
			}
			value = value * 10 + digit;
		}
		return value;
	}

}
