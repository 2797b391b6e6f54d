package dev.lockstarter.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

import org.springframework.util.Assert;

/**
 * Turns application keys into store keys: {@code prefix + key}, or, when that would
 * exceed {@value #MAX_KEY_BYTES} bytes of UTF-8,
 * {@code prefix + "#sha256:" + base64url(sha256(key))}. A short key that itself starts
 * with the hash marker is hashed as well, so that a hashed key can never equal an
 * unhashed one.
 */
final class StoreKeys {

	static final int MAX_KEY_BYTES = 250;

	static final String HASH_MARKER = "#sha256:";

	/**
	 * The length of a hashed key after the prefix: the marker plus 43 Base64 characters.
	 */
	static final int HASHED_KEY_LENGTH = HASH_MARKER.length() + 43;

	private final String prefix;

	private final int prefixBytes;

	StoreKeys(String prefix) {
		this.prefix = prefix;
		this.prefixBytes = prefix.getBytes(StandardCharsets.UTF_8).length;
		Assert.isTrue(this.prefixBytes + HASHED_KEY_LENGTH <= MAX_KEY_BYTES, () -> "Key prefix '" + prefix
				+ "' is too long: at most " + (MAX_KEY_BYTES - HASHED_KEY_LENGTH) + " bytes are allowed");
	}

	String storeKey(String key) {
		if (key.startsWith(HASH_MARKER) || exceedsLimit(key)) {
			return this.prefix + HASH_MARKER + sha256(key);
		}
		return this.prefix + key;
	}

	private boolean exceedsLimit(String key) {
		// Cheap bound first: a UTF-8 character takes at most 3 bytes per UTF-16 char.
		if (this.prefixBytes + key.length() * 3 <= MAX_KEY_BYTES) {
			return false;
		}
		return this.prefixBytes + key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES;
	}

	private static String sha256(String key) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
			return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

}
