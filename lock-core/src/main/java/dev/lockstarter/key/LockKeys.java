package dev.lockstarter.key;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.InvalidLockKeyException;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * Builds lock keys the way {@code @ExclusiveRequest} builds them, so that a programmatic
 * caller and an annotated method of one resource take one lock:
 * {@code LockKeys.of("user", id)} is the key of
 * {@code @ExclusiveRequest(name = "user", key = "#id")} for the same {@code id}, and
 * {@code LockKeys.of("order", customerId, orderId)} the key of
 * {@code @ExclusiveRequest(name = "order", key = { "#customerId", "#orderId" })}.
 * <p>
 * The key is the name, then each value's {@code toString()} after a {@code ':'}, with
 * {@code '\'} in a value written {@code "\\"} and {@code ':'} written {@code "\:"}, so
 * that distinct values never give the same key; the name is used as given. With no values
 * the key is the name alone, the key of an annotation without key expressions and of an
 * {@code @ExclusiveJob} of that name. A {@code null} or blank value names no lock and is
 * rejected, as the annotation rejects it.
 * <p>
 * A key concatenated by hand, such as {@code "user:" + id}, is the same key only while
 * {@code id} contains neither {@code ':'} nor {@code '\'}.
 *
 * @since 0.1.0
 */
public final class LockKeys {

	private LockKeys() {
	}

	/**
	 * Return the key of the lock {@code name} on {@code values}.
	 * @param name the lock name, as the annotation's {@code name}
	 * @param values the values, as the annotation's key expressions would yield them;
	 * none for the name alone
	 * @return the key
	 * @throws IllegalArgumentException if {@code name} is {@code null} or blank
	 * @throws InvalidLockKeyException if a value is {@code null} or its
	 * {@code toString()} is {@code null} or blank
	 */
	public static String of(String name, @Nullable Object @Nullable ... values) {
		Assert.hasText(name, "'name' must not be blank");
		if (values == null) {
			// of(name, null): one null value, not an absent array
			throw invalid(name, 0, null);
		}
		if (values.length == 0) {
			return name;
		}
		if (values.length == 1) {
			return key(name, text(name, 0, values[0]));
		}
		StringBuilder key = new StringBuilder(name.length() + 16 * values.length).append(name);
		for (int i = 0; i < values.length; i++) {
			key.append(':');
			appendEscaped(key, text(name, i, values[i]));
		}
		return key.toString();
	}

	/**
	 * Return {@code name:value}, the value's colons and backslashes escaped; without a
	 * copy of the value when there is nothing to escape.
	 */
	static String key(String name, String value) {
		if (value.indexOf(':') < 0 && value.indexOf('\\') < 0) {
			return name + ":" + value;
		}
		StringBuilder key = new StringBuilder(name.length() + value.length() + 8).append(name).append(':');
		appendEscaped(key, value);
		return key.toString();
	}

	/**
	 * Append a value with {@code '\'} written {@code "\\"} and {@code ':'} {@code "\:"}.
	 */
	static void appendEscaped(StringBuilder key, String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '\\' || c == ':') {
				key.append('\\');
			}
			key.append(c);
		}
	}

	private static String text(String name, int index, @Nullable Object value) {
		String text = (value != null) ? value.toString() : null;
		if (!StringUtils.hasText(text)) {
			throw invalid(name, index, text);
		}
		return text;
	}

	private static InvalidLockKeyException invalid(String name, int index, @Nullable String text) {
		return new InvalidLockKeyException(name, "Key value " + index + " of lock '" + name + "' is "
				+ ((text == null) ? "null" : "blank") + ", which names no lock", null);
	}

}
