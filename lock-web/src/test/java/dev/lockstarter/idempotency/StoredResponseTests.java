package dev.lockstarter.idempotency;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link StoredResponse}.
 */
class StoredResponseTests {

	private final StoredResponse response = new StoredResponse(new byte[] { 1, 2, 3 }, 201,
			List.of(Map.entry("Content-Type", "application/json"), Map.entry("Location", "/payments/1"),
					Map.entry("Cache-Control", "no-store"), Map.entry("Cache-Control", "private")),
			"{\"amount\": 100, \"note\": \"caf\u00e9\"}".getBytes(StandardCharsets.UTF_8));

	@Test
	void bytesReadBackAsTheSameResponse() {
		StoredResponse read = StoredResponse.fromBytes(this.response.toBytes());
		assertThat(read).isEqualTo(this.response);
		assertThat(read.headers()).containsExactlyElementsOf(this.response.headers());
		assertThat(read.matches(new byte[] { 1, 2, 3 })).isTrue();
		assertThat(read.matches(new byte[] { 1, 2, 4 })).isFalse();
	}

	@Test
	void emptyBodyAndNoHeadersReadBack() {
		StoredResponse empty = new StoredResponse(new byte[32], 204, List.of(), new byte[0]);
		assertThat(StoredResponse.fromBytes(empty.toBytes())).isEqualTo(empty);
	}

	@Test
	void truncatedOrUnknownRecordsAreRejected() {
		byte[] bytes = this.response.toBytes();
		assertThatIllegalStateException()
			.isThrownBy(() -> StoredResponse.fromBytes(Arrays.copyOf(bytes, bytes.length - 1)));
		byte[] otherVersion = bytes.clone();
		otherVersion[0] = 9;
		assertThatIllegalStateException().isThrownBy(() -> StoredResponse.fromBytes(otherVersion))
			.withMessageContaining("version");
	}

}
