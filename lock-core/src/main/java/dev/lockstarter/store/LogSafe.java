package dev.lockstarter.store;

import org.jspecify.annotations.Nullable;

/**
 * Lock keys as they may appear in a log. Keys carry user data (a user name, an
 * {@code Idempotency-Key}), so a key written to a log as it is could forge a log line
 * with a CR or LF, or reorder or hide part of it with bidirectional or invisible
 * formatting characters. Every module writes keys to logs through this class.
 * <p>
 * Unsafe characters, written as {@code \}{@code uXXXX} escapes (each half of a pair
 * outside the Basic Multilingual Plane as its own escape):
 * <ul>
 * <li>control characters: CR, LF, tab, ESC and every other C0/C1 control;</li>
 * <li>the Unicode line and paragraph separators (U+2028, U+2029);</li>
 * <li>format characters (Unicode category Cf): the bidirectional marks, embeddings,
 * overrides and isolates (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069),
 * the zero-width and invisible characters (U+200B to U+200D, U+2060 to U+2064, U+FEFF,
 * the soft hyphen) and tag characters;</li>
 * <li>a surrogate that is not half of a pair.</li>
 * </ul>
 *
 * @since 0.1.0
 */
public final class LogSafe {

	private static final int MAX_LENGTH = 300;

	private LogSafe() {
	}

	/**
	 * Return a message fit for a log line: unsafe characters written as
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
		return escape(text, text.length(), false);
	}

	/**
	 * Return a key fit for a log line: unsafe characters (see above) written as
	 * {@code \}{@code uXXXX} escapes, the backslash doubled, and anything past 300
	 * characters cut with an ellipsis; the cut never splits a surrogate pair.
	 * @param key the key, may be {@code null}
	 * @return the escaped key, {@code "null"} for {@code null}
	 */
	public static String key(@Nullable String key) {
		if (key == null) {
			return "null";
		}
		int length = Math.min(key.length(), MAX_LENGTH);
		if (length < key.length() && Character.isHighSurrogate(key.charAt(length - 1))
				&& Character.isLowSurrogate(key.charAt(length))) {
			length--;
		}
		String safe = escape(key, length, true);
		return (key.length() > length) ? safe + "..." : safe;
	}

	/**
	 * Escape the unsafe characters among the first {@code length} characters of a text.
	 * @return the text itself if it is whole and has nothing to escape
	 */
	private static String escape(String text, int length, boolean escapeBackslash) {
		StringBuilder escaped = null;
		int i = 0;
		while (i < length) {
			int codePoint = text.codePointAt(i);
			int count = Character.charCount(codePoint);
			boolean backslash = escapeBackslash && codePoint == '\\';
			boolean unsafe = backslash || isUnsafe(codePoint);
			if (unsafe && escaped == null) {
				escaped = new StringBuilder(length + 16).append(text, 0, i);
			}
			if (escaped != null) {
				if (backslash) {
					escaped.append("\\\\");
				}
				else if (unsafe) {
					for (int j = i; j < i + count; j++) {
						escaped.append(String.format("\\u%04x", (int) text.charAt(j)));
					}
				}
				else {
					escaped.append(text, i, i + count);
				}
			}
			i += count;
		}
		if (escaped != null) {
			return escaped.toString();
		}
		return (length == text.length()) ? text : text.substring(0, length);
	}

	private static boolean isUnsafe(int codePoint) {
		if (Character.isISOControl(codePoint) || codePoint == '\u2028' || codePoint == '\u2029') {
			return true;
		}
		int type = Character.getType(codePoint);
		// A lone surrogate: codePointAt returns a surrogate only when it is not paired
		return type == Character.FORMAT || type == Character.SURROGATE;
	}

}
