package dev.lockstarter.idempotency;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link IdempotencyKeys}.
 */
class IdempotencyKeysTests {

	@Test
	void quotedStringIsUnquoted() {
		assertThat(IdempotencyKeys.parse("\"8e03978e-40d5-43e8-bc93-6894a57f9324\""))
			.isEqualTo("8e03978e-40d5-43e8-bc93-6894a57f9324");
		assertThat(IdempotencyKeys.parse("  \"with space\"  ")).isEqualTo("with space");
	}

	@Test
	void escapedQuoteAndBackslashAreUnescaped() {
		assertThat(IdempotencyKeys.parse("\"a\\\"b\\\\c\"")).isEqualTo("a\"b\\c");
	}

	@Test
	void bareTokenIsTheSameKeyAsItsQuotedForm() {
		assertThat(IdempotencyKeys.parse("order-42:attempt/1")).isEqualTo("order-42:attempt/1")
			.isEqualTo(IdempotencyKeys.parse("\"order-42:attempt/1\""));
	}

	@Test
	void malformedValuesAreRejected() {
		for (String value : new String[] { "", "  ", "\"\"", "\"unterminated", "\"bad\\escape\"", "\"trailing\" x",
				"\"a\"\"b\"", "two words", "a,b", "a;b", "back\\slash", "quo\"te", "\"tab\there\"", "caf\u00e9",
				"\"caf\u00e9\"" }) {
			assertThat(IdempotencyKeys.parse(value)).as(value).isNull();
		}
	}

}
