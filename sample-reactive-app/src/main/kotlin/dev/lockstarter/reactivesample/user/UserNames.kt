package dev.lockstarter.reactivesample.user

import java.text.Normalizer

/**
 * The rule for user names, the same as the Java sample's: 1 to 30 letters, digits, `.`,
 * `_` or `-` after NFC normalization, starting with a letter or a digit. Both samples
 * normalize a name alike, so that they lock and store it under the same key.
 */
object UserNames {

	/** Most characters (Unicode code points, after normalization) in a user name. */
	const val MAX_LENGTH = 30

	/** The rule, as told to a person who typed a name outside it. */
	const val RULE = "1 to $MAX_LENGTH letters, digits, '.', '_' or '-', starting with a letter or a digit"

	private val allowed = Regex("[\\p{L}\\p{N}][\\p{L}\\p{M}\\p{N}._-]*")

	/**
	 * Return the normalized form (NFC) of a user name, or throw
	 * [InvalidUserNameException] if it is missing or outside [RULE].
	 */
	fun normalize(userName: String?): String {
		if (userName.isNullOrEmpty()) {
			throw InvalidUserNameException("'userName' is missing; it must have $RULE")
		}
		// Normalization lengthens a string by a small factor only: a name far beyond the
		// limit is refused before it is normalized, without refusing any valid name
		if (userName.length > MAX_LENGTH * 4) {
			throw outsideRule(userName)
		}
		val normalized = Normalizer.normalize(userName, Normalizer.Form.NFC)
		if (normalized.codePointCount(0, normalized.length) > MAX_LENGTH || !allowed.matches(normalized)) {
			throw outsideRule(userName)
		}
		return normalized
	}

	/**
	 * Return the form under which a name is stored, for a look-up: its NFC form, without
	 * the check of [normalize], since a name outside the rule is simply not found.
	 */
	fun lookupForm(userName: String): String = Normalizer.normalize(userName, Normalizer.Form.NFC)

	// The name itself is not repeated: it may be long, or hold characters that a log or
	// a page would render misleadingly
	private fun outsideRule(userName: String) = InvalidUserNameException(
		"'userName' (${userName.codePointCount(0, userName.length)} characters) must have $RULE")

}
