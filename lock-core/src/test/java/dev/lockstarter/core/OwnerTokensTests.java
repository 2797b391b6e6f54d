package dev.lockstarter.core;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class OwnerTokensTests {

	@Test
	void tokensAre128RandomBitsInUrlSafeBase64() {
		String token = OwnerTokens.next();
		assertThat(token).hasSize(22).matches("[A-Za-z0-9_-]+");
		assertThat(Base64.getUrlDecoder().decode(token)).hasSize(16);
	}

	@Test
	void tokensAreEncodedAsBase64UrlEncoderWithoutPaddingEncodesTheirBytes() {
		Base64.Encoder reference = Base64.getUrlEncoder().withoutPadding();
		ByteBuffer bytes = ByteBuffer.allocate(OwnerTokens.TOKEN_BYTES);
		List<long[]> halves = new ArrayList<>(List.of(new long[] { 0, 0 }, new long[] { -1, -1 },
				new long[] { Long.MIN_VALUE, 1 }, new long[] { 0xF, 0xC000000000000000L }, new long[] { 1, 3 }));
		Random random = new Random(17);
		for (int i = 0; i < 10_000; i++) {
			halves.add(new long[] { random.nextLong(), random.nextLong() });
		}
		for (long[] half : halves) {
			bytes.clear();
			bytes.putLong(half[0]).putLong(half[1]);
			assertThat(OwnerTokens.encode(half[0], half[1])).as("%x %x", half[0], half[1])
				.isEqualTo(reference.encodeToString(bytes.array()));
		}
	}

	@Test
	void noTokenIsHandedOutTwiceByThreadsDrawingAtOnce() throws InterruptedException {
		int threads = 8;
		int perThread = 20_000;
		Set<String> seen = ConcurrentHashMap.newKeySet();
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> drawers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread drawer = new Thread(() -> {
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				for (int i = 0; i < perThread; i++) {
					seen.add(OwnerTokens.next());
				}
			});
			drawer.start();
			drawers.add(drawer);
		}
		start.countDown();
		for (Thread drawer : drawers) {
			drawer.join();
		}
		// Two equal tokens (a buffer slice served twice) would leave the set smaller
		assertThat(seen).hasSize(threads * perThread);
	}

	@Test
	void bitsAreSpreadEvenly() {
		// Each of the 128 bit positions is set in about half of 20,000 tokens: a stripe
		// handing out zeroed or repeated bytes would push positions far from the mean
		int draws = 20_000;
		int[] ones = new int[128];
		for (int i = 0; i < draws; i++) {
			byte[] bytes = Base64.getUrlDecoder().decode(OwnerTokens.next());
			for (int bit = 0; bit < 128; bit++) {
				ones[bit] += (bytes[bit / 8] >> (bit % 8)) & 1;
			}
		}
		// 6 standard deviations (sqrt(20000) / 2 = 70.7) around 10,000
		for (int bit = 0; bit < 128; bit++) {
			assertThat(ones[bit]).as("bit %d", bit).isBetween(draws / 2 - 425, draws / 2 + 425);
		}
	}

	@Test
	void aStripeHandsOutDistinctEvenTokensAcrossItsReseed() {
		assertDistinctEvenTokens(new OwnerTokens.Stripe(), "AES/CTR");
	}

	@Test
	void aStripeWithoutTheCipherHandsOutDistinctEvenTokensFromItsDrbg() {
		assertDistinctEvenTokens(new OwnerTokens.Stripe(false), "DRBG");
	}

	/**
	 * Draw a little more than one key's worth of tokens from one stripe: none repeats,
	 * none is all zeros (a slice handed out before it was filled), and each bit position
	 * is set in about half of them.
	 */
	private static void assertDistinctEvenTokens(OwnerTokens.Stripe stripe, String source) {
		int draws = OwnerTokens.RESEED_BYTES / OwnerTokens.TOKEN_BYTES + 1000;
		Set<String> seen = new HashSet<>(2 * draws);
		int[] ones = new int[128];
		byte[] zeros = new byte[OwnerTokens.TOKEN_BYTES];
		for (int i = 0; i < draws; i++) {
			String token = stripe.next();
			byte[] bytes = Base64.getUrlDecoder().decode(token);
			assertThat(bytes).as("token %d from %s", i, source).isNotEqualTo(zeros);
			seen.add(token);
			for (int bit = 0; bit < 128; bit++) {
				ones[bit] += (bytes[bit / 8] >> (bit % 8)) & 1;
			}
		}
		assertThat(seen).as("distinct tokens from %s", source).hasSize(draws);
		// 6 standard deviations (sqrt(66536) / 2 = 129) around the mean
		for (int bit = 0; bit < 128; bit++) {
			assertThat(ones[bit]).as("bit %d from %s", bit, source).isBetween(draws / 2 - 774, draws / 2 + 774);
		}
	}

	@Test
	void stripesAreAPowerOfTwoOfAtLeastEightPerProcessorAndAtMost64() {
		assertThat(OwnerTokens.stripes(1)).hasSize(8);
		assertThat(OwnerTokens.stripes(2)).hasSize(16);
		assertThat(OwnerTokens.stripes(3)).hasSize(32);
		assertThat(OwnerTokens.stripes(4)).hasSize(32);
		assertThat(OwnerTokens.stripes(64)).hasSize(64);
		Set<Object> distinct = new HashSet<>(List.of(OwnerTokens.stripes(2)));
		assertThat(distinct).hasSize(16);
	}

}
