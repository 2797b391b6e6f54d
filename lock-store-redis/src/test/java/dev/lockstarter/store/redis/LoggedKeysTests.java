package dev.lockstarter.store.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LoggedKeys}.
 */
class LoggedKeysTests {

	@Test
	void plainKeyIsQuotedAsIs() {
		assertThat(LoggedKeys.quote("lock:UserService.register:alice")).isEqualTo("'lock:UserService.register:alice'");
	}

	@Test
	void lineBreaksCannotForgeALogLine() {
		String forged = "lock:a\r\n2024-01-01 INFO forged line";
		assertThat(LoggedKeys.quote(forged)).isEqualTo("'lock:a\\r\\n2024-01-01 INFO forged line'")
			.doesNotContain("\r")
			.doesNotContain("\n");
	}

	@Test
	void otherControlCharactersAndLineSeparatorsAreEscaped() {
		assertThat(LoggedKeys.quote("a\tb\u001b[31mc\u0000d\u0085e\u2028f\u2029g"))
			.isEqualTo("'a\\tb\\u001b[31mc\\u0000d\\u0085e\\u2028f\\u2029g'");
	}

	@Test
	void backslashIsDoubledSoThatEscapesStayUnambiguous() {
		assertThat(LoggedKeys.quote("a\\nb")).isEqualTo("'a\\\\nb'");
		assertThat(LoggedKeys.quote("a\nb")).isEqualTo("'a\\nb'");
	}

	@Test
	void unicodeTextIsKept() {
		assertThat(LoggedKeys.quote("ü 锁")).isEqualTo("'ü 锁'");
	}

}
