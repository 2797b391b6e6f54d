package dev.lockstarter.core;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link StoreKeys}.
 */
class StoreKeysTests {

	private final StoreKeys keys = new StoreKeys("lock:");

	@Test
	void shortKeysArePrefixedAndKeptReadable() {
		assertThat(this.keys.storeKey("users:alice")).isEqualTo("lock:users:alice");
	}

	@Test
	void keysOverTheCapAreHashedToAFixedLength() {
		String longKey = "users:" + "a".repeat(300);
		String stored = this.keys.storeKey(longKey);
		assertThat(stored).startsWith("lock:#sha256:");
		assertThat(stored.getBytes(StandardCharsets.UTF_8)).hasSizeLessThanOrEqualTo(StoreKeys.MAX_KEY_BYTES);
		assertThat(this.keys.storeKey(longKey)).isEqualTo(stored);
		assertThat(this.keys.storeKey("users:" + "a".repeat(299) + "b")).isNotEqualTo(stored);
	}

	@Test
	void capCountsUtf8Bytes() {
		String fits = "é".repeat(100);
		String tooLong = "é".repeat(130);
		assertThat(this.keys.storeKey(fits)).isEqualTo("lock:" + fits);
		assertThat(this.keys.storeKey(tooLong)).startsWith("lock:#sha256:");
	}

	@Test
	void shortKeyThatLooksHashedIsHashedToo() {
		String longKey = "x".repeat(400);
		String forged = this.keys.storeKey(longKey).substring("lock:".length());
		assertThat(this.keys.storeKey(forged)).isNotEqualTo(this.keys.storeKey(longKey)).startsWith("lock:#sha256:");
	}

	@Test
	void overlongPrefixIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> new StoreKeys("p".repeat(240)))
			.withMessageContaining("too long");
	}

}
