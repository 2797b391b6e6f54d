package dev.lockstarter.store;

import org.jspecify.annotations.Nullable;

/**
 * Lock keys as they may appear in a log. Keys carry user data (a user name, an
 * {@code Idempotency-Key}), so a key written to a log as it is could forge a log line
 * with a CR or LF. Every module writes keys to logs through this class.
 *
 * @since 0.1.0
 */
public final class LogSafe {

	private static final int MAX_LENGTH = 300;

	private LogSafe() {
	}

	/**
	 * Return a message fit for a log line: control characters written as
	 * {@code \}{@code uXXXX} escapes, as in {@link #key(String)}, but the backslash kept
	 * and nothing cut. {@link LockException} messages, which may name a key, go through
	 * it.
	 * @param text the text, may be {@code null}
	 * @return the escaped text, {@code null} for {@code null}
	 */
	public static @Nullable String text(@Nullable String text) {
		if (text == null) {
			return null;
		}
		StringBuilder escaped = null;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			boolean unsafe = Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
			if (unsafe && escaped == null) {
				escaped = new StringBuilder(text.length() + 16).append(text, 0, i);
			}
			if (escaped != null) {
				escaped.append(unsafe ? String.format("\\u%04x", (int) c) : String.valueOf(c));
			}
		}
		return (escaped != null) ? escaped.toString() : text;
	}

	/**
	 * Return a key fit for a log line: control characters (CR, LF, tab, ESC, and every
	 * other C0/C1 control, and the Unicode line and paragraph separators) written as
	 * {@code \}{@code uXXXX} escapes, the backslash doubled, and anything past 300
	 * characters cut with an ellipsis.
	 * @param key the key, may be {@code null}
	 * @return the escaped key, {@code "null"} for {@code null}
	 */
	public static String key(@Nullable String key) {
		if (key == null) {
			return "null";
		}
		StringBuilder escaped = null;
		int length = Math.min(key.length(), MAX_LENGTH);
		for (int i = 0; i < length; i++) {
			char c = key.charAt(i);
			boolean unsafe = c == '\\' || Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
			if (unsafe && escaped == null) {
				escaped = new StringBuilder(length + 16).append(key, 0, i);
			}
			if (escaped != null) {
				if (c == '\\') {
					escaped.append("\\\\");
				}
				else if (unsafe) {
					escaped.append(String.format("\\u%04x", (int) c));
				}
				else {
					escaped.append(c);
				}
			}
		}
		String safe = (escaped != null) ? escaped.toString() : key.substring(0, length);
		return (key.length() > MAX_LENGTH) ? safe + "..." : safe;
	}

}
