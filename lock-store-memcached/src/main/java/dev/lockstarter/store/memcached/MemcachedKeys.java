package dev.lockstarter.store.memcached;

import dev.lockstarter.store.HashedKeys;

/**
 * Turns store keys into valid Memcached keys. A key of at most {@value #MAX_KEY_LENGTH}
 * printable ASCII characters (no space, no control character) that does not start with
 * {@code '#'} is used as it is; any other key becomes its {@linkplain HashedKeys hashed
 * form}, {@code "#sha256:" + base64url(sha256(utf8(key)))}. Hashed and unhashed keys
 * therefore never meet, and distinct keys stay distinct (barring a SHA-256 collision).
 * The key of a lock's result, {@code "#result:" + base64url(sha256(utf8(key)))}, can
 * therefore never be the key of a lock either.
 */
final class MemcachedKeys {

	static final int MAX_KEY_LENGTH = 250;

	static final String RESULT_MARKER = "#result:";

	private MemcachedKeys() {
	}

	static String memcachedKey(String key) {
		if (isPlain(key)) {
			return key;
		}
		return HashedKeys.hash(key);
	}

	static String resultKey(String key) {
		return RESULT_MARKER + HashedKeys.sha256(key);
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

}
