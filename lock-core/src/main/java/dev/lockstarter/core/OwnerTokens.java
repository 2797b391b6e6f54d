package dev.lockstarter.core;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

import org.jspecify.annotations.Nullable;

/**
 * Generates owner tokens: 128 random bits from a {@code DRBG} {@link SecureRandom} (NIST
 * SP 800-90A, seeded by the platform's entropy source), Base64 URL-encoded.
 * <p>
 * A single shared {@code SecureRandom} costs every caller a JVM-wide lock ({@code
 * NativePRNG} takes one per call on Linux, whichever instance is used), and a lock held
 * by many threads at once is what the acquisition path waited on. So the bits come from
 * stripes, a power of two of them (eight per processor, at most 64), each with its own
 * generator, created on first use, and a buffer of {@value #BUFFER_SIZE} bytes that one
 * call to the generator fills: a caller takes the next 16 bytes of its thread's stripe.
 * No token is ever handed out twice, and none can be guessed from others.
 */
final class OwnerTokens {

	static final int TOKEN_BYTES = 16;

	static final int BUFFER_SIZE = 32 * TOKEN_BYTES;

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private static final Stripe[] STRIPES = stripes(Runtime.getRuntime().availableProcessors());

	private OwnerTokens() {
	}

	static String next() {
		byte[] bytes = new byte[TOKEN_BYTES];
		STRIPES[stripe(Thread.currentThread())].next(bytes);
		return ENCODER.encodeToString(bytes);
	}

	/**
	 * A thread keeps to one stripe, whose buffer stays in its processor's cache; threads
	 * are spread over the stripes by a multiplicative hash of their identity.
	 */
	private static int stripe(Thread thread) {
		return (System.identityHashCode(thread) * 0x9E3779B9 >>> 16) & (STRIPES.length - 1);
	}

	static Stripe[] stripes(int processors) {
		int count = Math.min(64, Integer.highestOneBit(Math.max(1, 8 * processors - 1)) << 1);
		Stripe[] stripes = new Stripe[count];
		for (int i = 0; i < count; i++) {
			stripes[i] = new Stripe();
		}
		return stripes;
	}

	/**
	 * A generator with its buffer. Its lock is held only to copy 16 bytes, or to refill
	 * the buffer once every 32 tokens.
	 */
	static final class Stripe {

		private @Nullable SecureRandom random;

		private final byte[] buffer = new byte[BUFFER_SIZE];

		private int position = BUFFER_SIZE;

		synchronized void next(byte[] into) {
			if (this.position == BUFFER_SIZE) {
				random().nextBytes(this.buffer);
				this.position = 0;
			}
			System.arraycopy(this.buffer, this.position, into, 0, into.length);
			// Bytes handed out are not kept
			Arrays.fill(this.buffer, this.position, this.position + into.length, (byte) 0);
			this.position += into.length;
		}

		private SecureRandom random() {
			SecureRandom random = this.random;
			if (random == null) {
				try {
					random = SecureRandom.getInstance("DRBG");
				}
				catch (NoSuchAlgorithmException ex) {
					// Every Java 9+ runtime has DRBG; the platform default is as good
					random = new SecureRandom();
				}
				this.random = random;
			}
			return random;
		}

	}

}
