package dev.lockstarter.store.zookeeper;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * The data of the store's nodes: a format byte, 8 bytes (big-endian), then the owner
 * token in UTF-8 (a lock) or the result's bytes (a result). For a lock, the 8 bytes are
 * its time-to-live in milliseconds: a duration, never a point in time, so that no
 * client's wall clock is written into a lock (contenders count it on their own monotonic
 * clock, see {@link dev.lockstarter.store.ObservedExpiry}). For a result, they are its
 * expiry time (epoch milliseconds of the writing client's wall clock): results are not
 * mutual exclusion. A released lock node holds the free format byte, no time and the
 * token of the owner that released it, so that a release repeated after its answer was
 * lost recognises its own write. An emptied result node holds nothing.
 * <p>
 * Lock data has its own format byte, distinct from that of the earlier format that held
 * an expiry time: data in that format (or any other) is not a held lock's.
 */
final class NodeData {

	/** A lock with its time-to-live; format 1, a lock with an expiry time, is retired. */
	private static final byte LOCK_FORMAT = 4;

	private static final byte RESULT_FORMAT = 2;

	private static final byte FREE_FORMAT = 3;

	private static final int HEADER = 9;

	private NodeData() {
	}

	/**
	 * The data of a lock node held by {@code token} for {@code ttl}, rounded up to whole
	 * milliseconds, so that no contender counts less than the holder does.
	 * @param token the owner token
	 * @param ttl the time-to-live, positive
	 * @return the data
	 */
	static byte[] lock(String token, Duration ttl) {
		long millis = ttl.toMillis();
		if (!ttl.minusMillis(millis).isZero()) {
			millis++;
		}
		return encode(LOCK_FORMAT, millis, token.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * The data of a lock node released by {@code token}: free for any acquirer.
	 * @param token the owner token of the release
	 * @return the data
	 */
	static byte[] free(String token) {
		byte[] owner = token.getBytes(StandardCharsets.UTF_8);
		return ByteBuffer.allocate(1 + owner.length).put(FREE_FORMAT).put(owner).array();
	}

	static byte[] result(byte[] result, long expiresAt) {
		return encode(RESULT_FORMAT, expiresAt, result);
	}

	/**
	 * Decode a lock node's data.
	 * @param data the data
	 * @return the lock, or {@code null} if the data is not a held lock's (a released
	 * lock, or a node written by something else), which the store treats as free
	 */
	static @Nullable Lock decodeLock(byte @Nullable [] data) {
		if (data == null || data.length < HEADER || data[0] != LOCK_FORMAT) {
			return null;
		}
		long ttlMillis = ByteBuffer.wrap(data, 1, 8).getLong();
		return new Lock(new String(data, HEADER, data.length - HEADER, StandardCharsets.UTF_8), ttlMillis);
	}

	static @Nullable Result decodeResult(byte @Nullable [] data) {
		if (data == null || data.length < HEADER || data[0] != RESULT_FORMAT) {
			return null;
		}
		long expiresAt = ByteBuffer.wrap(data, 1, 8).getLong();
		return new Result(Arrays.copyOfRange(data, HEADER, data.length), expiresAt);
	}

	private static byte[] encode(byte format, long expiresAt, byte[] payload) {
		return ByteBuffer.allocate(HEADER + payload.length).put(format).putLong(expiresAt).put(payload).array();
	}

	/**
	 * A lock node's data.
	 *
	 * @param token the owner token
	 * @param ttlMillis the time-to-live, milliseconds
	 */
	record Lock(String token, long ttlMillis) {

		Duration ttl() {
			return Duration.ofMillis(this.ttlMillis);
		}

	}

	/**
	 * A result node's data.
	 *
	 * @param bytes the result
	 * @param expiresAt the expiry time, epoch milliseconds
	 */
	record Result(byte[] bytes, long expiresAt) {

	}

}
