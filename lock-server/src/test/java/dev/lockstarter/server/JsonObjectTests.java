package dev.lockstarter.server;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link JsonObject}: what it writes, a JSON parser reads back unchanged.
 */
class JsonObjectTests {

	private final JsonMapper json = JsonMapper.builder().build();

	@Test
	void stringsComeBackUnchangedWhateverTheyHold() {
		String[] values = { "", "plain", "quote \" and reverse solidus \\ and solidus /", "tab\tline\nreturn\rnul\0",
				"\u001f\u007f", "unicode ü € 😀", "{\"looks\":\"like json\"}" };
		for (String value : values) {
			JsonNode read = this.json.readTree(new JsonObject().string("value", value).toBytes());
			assertThat(read.get("value").asString()).as(value).isEqualTo(value);
		}
	}

	@Test
	void fieldsComeInTheirOrderWithTheirTypes() {
		byte[] bytes = new JsonObject().string("key", "a/b")
			.number("fencingToken", Long.MAX_VALUE)
			.number("ttlMillis", -1)
			.bool("held", true)
			.bool("gone", false)
			.toBytes();
		assertThat(new String(bytes, StandardCharsets.UTF_8))
			.isEqualTo("{\"key\":\"a/b\",\"fencingToken\":9223372036854775807,\"ttlMillis\":-1,\"held\":true,"
					+ "\"gone\":false}");
		JsonNode read = this.json.readTree(bytes);
		assertThat(read.get("fencingToken").asLong()).isEqualTo(Long.MAX_VALUE);
		assertThat(read.get("held").isBoolean()).isTrue();
	}

	@Test
	void anEmptyObjectIsAnObject() {
		assertThat(new String(new JsonObject().toBytes(), StandardCharsets.UTF_8)).isEqualTo("{}");
	}

}
