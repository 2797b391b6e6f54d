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
	void bidirectionalFormattingCharactersAreEscapedSoThatAKeyCannotReorderTheLine() {
		for (char c : new char[] { '\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e',
				'\u2066', '\u2067', '\u2068', '\u2069' }) {
			String escape = String.format("\\u%04x", (int) c);
			assertThat(LogSafe.key("invoice" + c + "fdp.exe")).as(escape).isEqualTo("invoice" + escape + "fdp.exe");
			assertThat(LogSafe.text("lock 'a" + c + "b'")).as(escape).isEqualTo("lock 'a" + escape + "b'");
		}
	}

	@Test
	void zeroWidthAndOtherInvisibleFormatCharactersAreEscaped() {
		assertThat(LogSafe.key("ad\u200bmin\u200c\u200d\u2060\ufeff\u00ad"))
			.isEqualTo("ad\\u200bmin\\u200c\\u200d\\u2060\\ufeff\\u00ad");
		assertThat(LogSafe.text("a\u200bb")).isEqualTo("a\\u200bb");
		// U+E0041, a tag character (format, outside the Basic Multilingual Plane)
		assertThat(LogSafe.key("a\udb40\udc41b")).isEqualTo("a\\udb40\\udc41b");
	}

	@Test
	void loneSurrogatesAreEscaped() {
		assertThat(LogSafe.key("a\ud83db")).isEqualTo("a\\ud83db");
		assertThat(LogSafe.text("a\ude00b")).isEqualTo("a\\ude00b");
	}

	@Test
	void cutNeverSplitsASurrogatePair() {
		String key = "k".repeat(299) + "\ud83d\ude00" + "tail";
		assertThat(LogSafe.key(key)).isEqualTo("k".repeat(299) + "...");
		String fits = "k".repeat(298) + "\ud83d\ude00" + "tail";
		assertThat(LogSafe.key(fits)).isEqualTo("k".repeat(298) + "\ud83d\ude00...");
	}

	@Test
	void exceptionMessagesNamingAKeyCarryNoControlCharacter() {
		LockStoreException ex = new LockStoreException("bob\nFAKE", "failed to acquire lock 'bob\nFAKE'",
				new IllegalStateException());
		assertThat(ex.getMessage()).isEqualTo("failed to acquire lock 'bob\\u000aFAKE'");
		assertThat(ex.getLockName()).isEqualTo("bob\nFAKE");
	}

}
