package dev.lockstarter.store.memcached;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Turns store keys into valid Memcached keys. A key of at most {@value #MAX_KEY_LENGTH}
 * printable ASCII characters (no space, no control character) that does not start with
 * {@code '#'} is used as it is; any other key becomes
 * {@code "#sha256:" + base64url(sha256(utf8(key)))}. Hashed and unhashed keys therefore
 * never meet, and distinct keys stay distinct (barring a SHA-256 collision). The key of a
 * lock's result, {@code "#result:" + base64url(sha256(utf8(key)))}, can therefore never
 * be the key of a lock either.
 */
final class MemcachedKeys {

	static final int MAX_KEY_LENGTH = 250;

	static final String HASH_MARKER = "#sha256:";

	static final String RESULT_MARKER = "#result:";

	private MemcachedKeys() {
	}

	static String memcachedKey(String key) {
		if (isPlain(key)) {
			return key;
		}
		return HASH_MARKER + sha256(key);
	}

	static String resultKey(String key) {
		return RESULT_MARKER + sha256(key);
	}

	private static boolean isPlain(String key) {
		if (key.isEmpty() || key.length() > MAX_KEY_LENGTH || key.charAt(0) == '#') {
			return false;
		}
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (c <= ' ' || c >= 0x7f) {
				return false;
			}
		}
		return true;
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
