package dev.lockstarter.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LogSafe}: a key cannot forge a log line.
 */
class LogSafeTests {

	@Test
	void lineBreaksAndOtherControlsAreEscaped() {
		String forged = "alice\r\n2026-01-01 INFO Admin logged in\u2028\u0085\u001b[31m";
		String safe = LogSafe.key(forged);
		assertThat(safe).doesNotContain("\r", "\n", "\u2028", "\u0085", "\u001b")
			.isEqualTo("alice\\u000d\\u000a2026-01-01 INFO Admin logged in\\u2028\\u0085\\u001b[31m");
	}

	@Test
	void backslashesAreDoubledInKeysSoThatAnEscapeCannotBeForgedEither() {
		assertThat(LogSafe.key("a\\u000ab")).isEqualTo("a\\\\u000ab");
		assertThat(LogSafe.key("a\nb")).isEqualTo("a\\u000ab");
	}

	@Test
	void plainKeysAreReturnedAsTheyAre() {
		String key = "UserService.register:ålice-😀";
		assertThat(LogSafe.key(key)).isSameAs(key);
		assertThat(LogSafe.text(key)).isSameAs(key);
		assertThat(LogSafe.key(null)).isEqualTo("null");
	}

	@Test
	void longKeysAreCut() {
		assertThat(LogSafe.key("k".repeat(1000))).hasSize(303).endsWith("...");
	}

	@Test
	void exceptionMessagesNamingAKeyCarryNoControlCharacter() {
		LockStoreException ex = new LockStoreException("bob\nFAKE", "failed to acquire lock 'bob\nFAKE'",
				new IllegalStateException());
		assertThat(ex.getMessage()).isEqualTo("failed to acquire lock 'bob\\u000aFAKE'");
		assertThat(ex.getLockName()).isEqualTo("bob\nFAKE");
	}

}
