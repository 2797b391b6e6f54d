package dev.lockstarter.store;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link HashedKeys}.
 */
class HashedKeysTests {

	@Test
	void keyWithinTheLimitIsKeptAsItIs() {
		assertThat(HashedKeys.limit("users:alice", 100)).isEqualTo("users:alice");
		assertThat(HashedKeys.limit("a".repeat(100), 100)).isEqualTo("a".repeat(100));
	}

	@Test
	void keyOverTheLimitIsHashedToTheFixedLength() {
		String hashed = HashedKeys.limit("a".repeat(101), 100);
		assertThat(hashed).startsWith(HashedKeys.MARKER).hasSize(HashedKeys.HASHED_LENGTH);
		assertThat(HashedKeys.limit("a".repeat(101), 100)).isEqualTo(hashed);
		assertThat(HashedKeys.limit("a".repeat(100) + "b", 100)).isNotEqualTo(hashed);
	}

	@Test
	void limitCountsUtf8BytesNotChars() {
		assertThat(HashedKeys.limit("é".repeat(50), 100)).isEqualTo("é".repeat(50));
		assertThat(HashedKeys.limit("é".repeat(51), 100)).startsWith(HashedKeys.MARKER);
		assertThat(HashedKeys.limit("😀".repeat(25), 100)).isEqualTo("😀".repeat(25));
		assertThat(HashedKeys.limit("😀".repeat(26), 100)).startsWith(HashedKeys.MARKER);
	}

	@Test
	void shortKeyThatLooksHashedIsHashedAgainSoItCannotMeetTheKeyItImitates() {
		String longKey = "x".repeat(400);
		String hashed = HashedKeys.limit(longKey, 100);
		assertThat(HashedKeys.limit(hashed, 100)).startsWith(HashedKeys.MARKER).isNotEqualTo(hashed);
	}

	@Test
	void hashIsTheBase64urlSha256OfTheUtf8Bytes() {
		// SHA-256("abc") =
		// ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
		assertThat(HashedKeys.sha256("abc")).isEqualTo("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
		assertThat(HashedKeys.hash("abc")).isEqualTo("#sha256:ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
	}

	@Test
	void exceedsUtf8BytesAgreesWithEncoding() {
		for (String text : new String[] { "", "a", "é", "😀", "aé😀", "é".repeat(40), "a".repeat(90) }) {
			for (int max = 0; max <= 100; max += 7) {
				assertThat(HashedKeys.exceedsUtf8Bytes(text, max)).as("'%s' over %d bytes", text, max)
					.isEqualTo(text.getBytes(StandardCharsets.UTF_8).length > max);
			}
		}
	}

	@Test
	void limitBelowTheHashedLengthIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> HashedKeys.limit("a", HashedKeys.HASHED_LENGTH - 1))
			.withMessageContaining("maxBytes");
	}

}
