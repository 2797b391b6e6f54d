package dev.lockstarter.core;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one owner token (128 random bits, Base64 URL-encoded) drawn by 1 and by 8
 * threads at once, for the ways of drawing it that were weighed, and for
 * {@link OwnerTokens} itself:
 * <ul>
 * <li>{@code SHARED_NATIVE_PRNG}: one {@code new SecureRandom()} for the whole JVM, which
 * on Linux is {@code NativePRNG}, whose every instance takes one JVM-wide lock per
 * call;</li>
 * <li>{@code SHARED_DRBG}: one {@code DRBG} instance;</li>
 * <li>{@code STRIPED_DRBG}: one {@code DRBG} instance per stripe, the stripe picked by
 * the calling thread's random probe;</li>
 * <li>{@code THREAD_LOCAL_DRBG}: one {@code DRBG} instance per thread;</li>
 * <li>{@code STRIPED_BUFFERED_DRBG}: striped {@code DRBG} instances, each filling a
 * buffer of 32 tokens at a time (what {@link OwnerTokens} does, but with the stripe
 * picked at random);</li>
 * <li>{@code STRIPED_SHA1PRNG}: striped {@code SHA1PRNG} instances, for comparison.</li>
 * </ul>
 * It lives in the package of {@link OwnerTokens} to call it directly.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public abstract class OwnerTokenBenchmark {

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	@Benchmark
	public String alternative(Alternatives alternatives) {
		byte[] bytes = new byte[16];
		alternatives.next(bytes);
		return ENCODER.encodeToString(bytes);
	}

	@Benchmark
	public String ownerTokens() {
		return OwnerTokens.next();
	}

	/**
	 * Every benchmark with one thread.
	 */
	@Threads(1)
	public static class OneThread extends OwnerTokenBenchmark {

	}

	/**
	 * Every benchmark with eight threads.
	 */
	@Threads(8)
	public static class EightThreads extends OwnerTokenBenchmark {

	}

	@State(Scope.Benchmark)
	public static class Alternatives {

		private static final int STRIPES = 16;

		@Param({ "SHARED_NATIVE_PRNG", "SHARED_DRBG", "STRIPED_DRBG", "THREAD_LOCAL_DRBG", "STRIPED_BUFFERED_DRBG",
				"STRIPED_SHA1PRNG" })
		public String alternative;

		private SecureRandom shared;

		private SecureRandom[] stripes;

		private ThreadLocal<SecureRandom> perThread;

		private Buffer[] buffers;

		@Setup
		public void setUp() throws NoSuchAlgorithmException {
			this.shared = this.alternative.equals("SHARED_NATIVE_PRNG") ? new SecureRandom()
					: SecureRandom.getInstance("DRBG");
			this.stripes = new SecureRandom[STRIPES];
			for (int i = 0; i < STRIPES; i++) {
				this.stripes[i] = SecureRandom
					.getInstance(this.alternative.equals("STRIPED_SHA1PRNG") ? "SHA1PRNG" : "DRBG");
			}
			this.buffers = new Buffer[STRIPES];
			for (int i = 0; i < STRIPES; i++) {
				this.buffers[i] = new Buffer(SecureRandom.getInstance("DRBG"));
			}
			this.perThread = ThreadLocal.withInitial(() -> {
				try {
					return SecureRandom.getInstance("DRBG");
				}
				catch (NoSuchAlgorithmException ex) {
					throw new IllegalStateException(ex);
				}
			});
		}

		void next(byte[] bytes) {
			int stripe = ThreadLocalRandom.current().nextInt() & (STRIPES - 1);
			switch (this.alternative) {
				case "STRIPED_DRBG", "STRIPED_SHA1PRNG" -> this.stripes[stripe].nextBytes(bytes);
				case "THREAD_LOCAL_DRBG" -> this.perThread.get().nextBytes(bytes);
				case "STRIPED_BUFFERED_DRBG" -> this.buffers[stripe].next(bytes);
				default -> this.shared.nextBytes(bytes);
			}
		}

	}

	/** A generator and a buffer of 32 tokens that one call fills. */
	static final class Buffer {

		private final SecureRandom random;

		private final byte[] bytes = new byte[512];

		private int position = 512;

		Buffer(SecureRandom random) {
			this.random = random;
		}

		synchronized void next(byte[] into) {
			if (this.position == this.bytes.length) {
				this.random.nextBytes(this.bytes);
				this.position = 0;
			}
			System.arraycopy(this.bytes, this.position, into, 0, into.length);
			this.position += into.length;
		}

	}

}
