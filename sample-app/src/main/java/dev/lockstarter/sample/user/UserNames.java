package dev.lockstarter.sample.user;

import java.text.Normalizer;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The rule for user names, applied before a name reaches the lock or the store.
 * <p>
 * A name is first normalized to Unicode NFC, so that one visible name typed in two forms
 * (a precomposed "é", or "e" followed by a combining acute accent) becomes one string,
 * one lock key and one stored user. The normalized name must then have
 * {@value #MAX_LENGTH} characters at most, and consist of letters (of any script),
 * combining marks, digits, {@code .}, {@code _} and {@code -}, starting with a letter or
 * a digit. Spaces of every kind (including the no-break space), invisible characters such
 * as the zero-width space, control characters and symbols are refused.
 *
 * @since 0.1.0
 */
public final class UserNames {

	/** Most characters (Unicode code points, after normalization) in a user name. */
	public static final int MAX_LENGTH = 30;

	/** The rule, as told to a person who typed a name outside it. */
	public static final String RULE = "1 to " + MAX_LENGTH
			+ " letters, digits, '.', '_' or '-', starting with a letter or a digit";

	private static final Pattern ALLOWED = Pattern.compile("[\\p{L}\\p{N}][\\p{L}\\p{M}\\p{N}._-]*");

	private UserNames() {
	}

	/**
	 * Return the normalized form of a user name, or refuse it.
	 * @param userName the name as received, {@code null} when the request lacked it
	 * @return the name in NFC
	 * @throws InvalidUserNameException if the name is missing or outside {@link #RULE}
	 */
	public static String normalize(@Nullable String userName) {
		if (userName == null || userName.isEmpty()) {
			throw new InvalidUserNameException("'userName' is missing; it must have " + RULE);
		}
		// A name far beyond the limit is refused before it is normalized: normalization
		// can lengthen a string by a small factor only, so this never refuses a valid
		// name
		if (userName.length() > MAX_LENGTH * 4) {
			throw outsideRule(userName);
		}
		String normalized = Normalizer.normalize(userName, Normalizer.Form.NFC);
		if (normalized.codePointCount(0, normalized.length()) > MAX_LENGTH || !ALLOWED.matcher(normalized).matches()) {
			throw outsideRule(userName);
		}
		return normalized;
	}

	/**
	 * Return the form under which a name is stored, for a look-up: its NFC form, without
	 * the check of {@link #normalize(String)}, since a name outside the rule is simply
	 * not found.
	 * @param userName the name to look up
	 * @return the name in NFC
	 */
	public static String lookupForm(String userName) {
		return Normalizer.normalize(userName, Normalizer.Form.NFC);
	}

	private static InvalidUserNameException outsideRule(String userName) {
		// The name itself is not repeated: it may be megabytes long, or hold characters
		// that a log or a page would render misleadingly
		return new InvalidUserNameException(
				"'userName' (" + userName.codePointCount(0, userName.length()) + " characters) must have " + RULE);
	}

}
