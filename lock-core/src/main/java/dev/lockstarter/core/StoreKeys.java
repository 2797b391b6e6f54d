package dev.lockstarter.core;

import java.nio.charset.StandardCharsets;

import dev.lockstarter.store.HashedKeys;
import org.springframework.util.Assert;

/**
 * Turns application keys into store keys: {@code prefix + key}, or, when that would
 * exceed {@value #MAX_KEY_BYTES} bytes of UTF-8, {@code prefix} and the key's
 * {@linkplain HashedKeys hashed form}.
 */
final class StoreKeys {

	static final int MAX_KEY_BYTES = 250;

	private final String prefix;

	private final int maxKeyBytes;

	StoreKeys(String prefix) {
		this.prefix = prefix;
		this.maxKeyBytes = MAX_KEY_BYTES - prefix.getBytes(StandardCharsets.UTF_8).length;
		Assert.isTrue(this.maxKeyBytes >= HashedKeys.HASHED_LENGTH, () -> "Key prefix '" + prefix
				+ "' is too long: at most " + (MAX_KEY_BYTES - HashedKeys.HASHED_LENGTH) + " bytes are allowed");
	}

	String prefix() {
		return this.prefix;
	}

	String storeKey(String key) {
		String limited = HashedKeys.limit(key, this.maxKeyBytes);
		// Without a prefix the key is used as it is, not copied
		return this.prefix.isEmpty() ? limited : this.prefix + limited;
	}

}
