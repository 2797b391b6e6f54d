package dev.lockstarter.idempotency;

import org.jspecify.annotations.Nullable;

/**
 * Parses {@code Idempotency-Key} header values. The header is a Structured Field String
 * (RFC 9651): printable ASCII between double quotes, where {@code \"} and {@code \\}
 * stand for a quote and a backslash. Many clients send the key without quotes; such a
 * value is accepted when it is one token of visible ASCII characters without quotes,
 * backslashes, commas or semicolons. Either form gives the same key: {@code "abc"} and
 * {@code abc} are one key.
 */
final class IdempotencyKeys {

	private IdempotencyKeys() {
	}

	/**
	 * Parse a header value.
	 * @param value the raw header value
	 * @return the key, or {@code null} if the value is empty or malformed
	 */
	static @Nullable String parse(String value) {
		String text = value.strip();
		if (text.isEmpty()) {
			return null;
		}
		return (text.charAt(0) == '"') ? parseQuoted(text) : parseBare(text);
	}

	private static @Nullable String parseQuoted(String text) {
		StringBuilder key = new StringBuilder(text.length());
		int i = 1;
		while (i < text.length()) {
			char c = text.charAt(i);
			if (c == '\\') {
				if (i + 1 >= text.length()) {
					return null;
				}
				char escaped = text.charAt(i + 1);
				if (escaped != '"' && escaped != '\\') {
					return null;
				}
				key.append(escaped);
				i += 2;
			}
			else if (c == '"') {
				// The closing quote must end the value, and the key must not be empty.
				return (i == text.length() - 1 && key.length() > 0) ? key.toString() : null;
			}
			else if (c < 0x20 || c > 0x7E) {
				return null;
			}
			else {
				key.append(c);
				i++;
			}
		}
		return null;
	}

	private static @Nullable String parseBare(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c <= 0x20 || c > 0x7E || c == '"' || c == '\\' || c == ',' || c == ';') {
				return null;
			}
		}
		return text;
	}

}
