package dev.lockstarter.core;

import java.security.SecureRandom;
import java.util.Base64;

/**
 * Generates owner tokens: 128 random bits from a {@link SecureRandom}, Base64
 * URL-encoded.
 */
final class OwnerTokens {

	private static final SecureRandom RANDOM = new SecureRandom();

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private OwnerTokens() {
	}

	static String next() {
		byte[] bytes = new byte[16];
		RANDOM.nextBytes(bytes);
		return ENCODER.encodeToString(bytes);
	}

}
