package dev.lockstarter.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;

import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import org.jspecify.annotations.Nullable;

/**
 * Generates owner tokens: 128 bits of an AES-256 counter-mode keystream, Base64
 * URL-encoded.
 * <p>
 * A single shared {@code SecureRandom} costs every caller a JVM-wide lock ({@code
 * NativePRNG} takes one per call on Linux, whichever instance is used), and a lock held
 * by many threads at once is what the acquisition path waited on; a {@code DRBG} of its
 * own per thread group still spends about 45 ns of SHA-256 per token. So the bits come
 * from stripes, a power of two of them (eight per processor, at most 64), each an
 * {@code AES/CTR} cipher keyed with 256 bits and a counter from a {@code DRBG}
 * {@link SecureRandom} (NIST SP 800-90A, seeded by the platform's entropy source), which
 * fills a buffer of {@value #BUFFER_SIZE} bytes at a time; a caller takes the next 16
 * bytes of its thread's stripe. This is the construction of SP 800-90A's
 * {@code CTR_DRBG}: the keystream cannot be told from random bits, nor one token guessed
 * from others, without the key. Each stripe draws a new key and counter every
 * {@value #RESEED_BYTES} bytes. Within one key, two 16-byte blocks of the keystream are
 * never equal (AES is a permutation of distinct counter values), so no stripe hands out a
 * token twice; across stripes and instances, keys are independent. Where the runtime
 * offers no {@code AES/CTR}, the stripe's {@code DRBG} fills the buffer itself.
 * <p>
 * The 16 bytes leave the stripe as two {@code long}s and are encoded straight into the
 * token's 22 characters: no array for the bytes, no intermediate encoding.
 */
final class OwnerTokens {

	static final int TOKEN_BYTES = 16;

	static final int BUFFER_SIZE = 256 * TOKEN_BYTES;

	/** How many bytes a stripe draws from one key. */
	static final int RESEED_BYTES = 1 << 20;

	/** Base64 URL-safe alphabet (RFC 4648, section 5). */
	private static final byte[] ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		.getBytes(StandardCharsets.US_ASCII);

	/** Big-endian {@code long}s of a byte array, as Base64 reads the bytes. */
	private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

	private static final Stripe[] STRIPES = stripes(Runtime.getRuntime().availableProcessors());

	private OwnerTokens() {
	}

	static String next() {
		return STRIPES[stripe(Thread.currentThread())].next();
	}

	/**
	 * Encode 16 bytes, given as two big-endian {@code long}s, as {@code Base64}'s URL
	 * encoder without padding would: 21 characters of 6 bits each, and a last one of the
	 * remaining 2 bits followed by four zero bits.
	 * @param high the first 8 bytes
	 * @param low the last 8 bytes
	 * @return the 22 characters
	 */
	static String encode(long high, long low) {
		byte[] chars = new byte[22];
		// Bits 0-59 of the 128 from the high half
		for (int i = 0; i < 10; i++) {
			chars[i] = ALPHABET[(int) (high >>> (58 - 6 * i)) & 63];
		}
		// Bits 60-65 span both halves
		chars[10] = ALPHABET[(int) (((high & 0xF) << 2) | (low >>> 62))];
		// Bits 66-125 from the low half
		for (int i = 0; i < 10; i++) {
			chars[11 + i] = ALPHABET[(int) (low >>> (56 - 6 * i)) & 63];
		}
		chars[21] = ALPHABET[(int) (low & 3) << 4];
		return new String(chars, StandardCharsets.ISO_8859_1);
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
	 * the buffer once every 256 tokens.
	 */
	static final class Stripe {

		private @Nullable SecureRandom random;

		private @Nullable Cipher cipher;

		private boolean cipherUnavailable;

		private int sinceReseed = RESEED_BYTES;

		private final byte[] buffer = new byte[BUFFER_SIZE];

		private int position = BUFFER_SIZE;

		Stripe() {
		}

		/**
		 * Create a stripe whose {@code DRBG} fills the buffer itself, as where the
		 * runtime offers no {@code AES/CTR}; for tests.
		 * @param cipher {@code false} to go without the cipher
		 */
		Stripe(boolean cipher) {
			this.cipherUnavailable = !cipher;
		}

		/**
		 * Take the next 16 bytes of the buffer and encode them; only the taking holds the
		 * stripe's lock.
		 * @return the token
		 */
		String next() {
			long high;
			long low;
			synchronized (this) {
				if (this.position == BUFFER_SIZE) {
					refill();
					this.position = 0;
				}
				high = (long) LONGS.get(this.buffer, this.position);
				low = (long) LONGS.get(this.buffer, this.position + 8);
				// Bytes handed out are not kept
				LONGS.set(this.buffer, this.position, 0L);
				LONGS.set(this.buffer, this.position + 8, 0L);
				this.position += TOKEN_BYTES;
			}
			return encode(high, low);
		}

		private void refill() {
			Cipher keystream = keystream();
			if (keystream == null) {
				random().nextBytes(this.buffer);
				return;
			}
			try {
				// The buffer is all zeros (each byte was cleared when handed out), so the
				// encryption leaves the keystream in it
				keystream.update(this.buffer, 0, BUFFER_SIZE, this.buffer, 0);
			}
			catch (GeneralSecurityException ex) {
				// Start the next refill from zeros again
				Arrays.fill(this.buffer, (byte) 0);
				throw new IllegalStateException("AES/CTR failed to fill the owner token buffer", ex);
			}
			this.sinceReseed += BUFFER_SIZE;
		}

		/** The stripe's cipher, keyed anew every {@link #RESEED_BYTES} bytes. */
		private @Nullable Cipher keystream() {
			if (this.cipherUnavailable) {
				return null;
			}
			if (this.sinceReseed < RESEED_BYTES) {
				return this.cipher;
			}
			byte[] key = new byte[32];
			byte[] counter = new byte[16];
			random().nextBytes(key);
			random().nextBytes(counter);
			try {
				Cipher keyed = (this.cipher != null) ? this.cipher : Cipher.getInstance("AES/CTR/NoPadding");
				keyed.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(counter));
				this.cipher = keyed;
				this.sinceReseed = 0;
				return keyed;
			}
			catch (GeneralSecurityException ex) {
				// A runtime without AES/CTR (or with 256-bit keys restricted): the DRBG
				// fills the buffer instead
				this.cipherUnavailable = true;
				this.cipher = null;
				return null;
			}
			finally {
				Arrays.fill(key, (byte) 0);
			}
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
