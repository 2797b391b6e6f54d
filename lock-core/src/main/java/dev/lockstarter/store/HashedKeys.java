package dev.lockstarter.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

import org.springframework.util.Assert;

/**
 * Hashing of keys that a store cannot keep as they are: one rule for every store. A key
 * is replaced by {@value #MARKER} followed by the Base64url SHA-256 of its UTF-8 bytes
 * ({@value #HASHED_LENGTH} characters in all). A key that itself starts with the marker
 * is always hashed, so a hashed key can never equal a key kept as it is; distinct keys
 * stay distinct, barring a SHA-256 collision.
 *
 * @since 0.1.0
 */
public final class HashedKeys {

	/** The start of every hashed key. */
	public static final String MARKER = "#sha256:";

	/** The length of a hashed key: the marker and 43 Base64url characters. */
	public static final int HASHED_LENGTH = 51;

	private HashedKeys() {
	}

	/**
	 * Return the key as it is when it takes at most {@code maxBytes} bytes of UTF-8 and
	 * does not start with the {@linkplain #MARKER marker}, and its
	 * {@linkplain #hash(String) hash} otherwise.
	 * @param key the key
	 * @param maxBytes the most UTF-8 bytes a key may take, at least
	 * {@value #HASHED_LENGTH}
	 * @return the key or its hash
	 */
	public static String limit(String key, int maxBytes) {
		Assert.notNull(key, "'key' must not be null");
		Assert.isTrue(maxBytes >= HASHED_LENGTH, () -> "'maxBytes' must be at least " + HASHED_LENGTH);
		return (key.startsWith(MARKER) || exceedsUtf8Bytes(key, maxBytes)) ? hash(key) : key;
	}

	/**
	 * Return the hashed form of a key: the {@linkplain #MARKER marker} and the Base64url
	 * SHA-256 of its UTF-8 bytes.
	 * @param key the key
	 * @return the hashed key
	 */
	public static String hash(String key) {
		return MARKER + sha256(key);
	}

	/**
	 * Return the Base64url SHA-256, without padding, of the UTF-8 bytes of a text.
	 * @param text the text
	 * @return 43 characters
	 */
	public static String sha256(String text) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
			return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

	/**
	 * Return whether a text takes more than {@code maxBytes} bytes of UTF-8, without
	 * encoding it when its length alone answers.
	 * @param text the text
	 * @param maxBytes the limit
	 * @return whether the text's UTF-8 form is longer than the limit
	 */
	public static boolean exceedsUtf8Bytes(String text, int maxBytes) {
		// A UTF-16 char takes at most 3 bytes of UTF-8, and at least 1.
		if (text.length() * 3L <= maxBytes) {
			return false;
		}
		if (text.length() > maxBytes) {
			return true;
		}
		return text.getBytes(StandardCharsets.UTF_8).length > maxBytes;
	}

}
