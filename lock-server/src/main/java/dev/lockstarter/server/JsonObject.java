package dev.lockstarter.server;

import java.nio.charset.StandardCharsets;

/**
 * One flat JSON object (RFC 8259), written field by field: the lock resource's answers,
 * which are a handful of strings, numbers and booleans, written without a JSON library's
 * lookup of a serializer for each answer. A string is escaped as the RFC requires: its
 * quotation marks, reverse solidi and control characters.
 *
 * @since 0.1.0
 */
final class JsonObject {

	private static final char[] HEX = "0123456789abcdef".toCharArray();

	private final StringBuilder json = new StringBuilder(192).append('{');

	JsonObject string(String name, String value) {
		name(name);
		quoted(value);
		return this;
	}

	JsonObject number(String name, long value) {
		name(name);
		this.json.append(value);
		return this;
	}

	JsonObject bool(String name, boolean value) {
		name(name);
		this.json.append(value);
		return this;
	}

	/**
	 * Return the object, closed, as UTF-8.
	 * @return its bytes
	 */
	byte[] toBytes() {
		return this.json.append('}').toString().getBytes(StandardCharsets.UTF_8);
	}

	private void name(String name) {
		if (this.json.length() > 1) {
			this.json.append(',');
		}
		quoted(name);
		this.json.append(':');
	}

	private void quoted(String value) {
		this.json.append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '"' || c == '\\') {
				this.json.append('\\').append(c);
			}
			else if (c < 0x20) {
				this.json.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
			}
			else {
				this.json.append(c);
			}
		}
		this.json.append('"');
	}

}
