package dev.lockstarter.idempotency;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ResponseReplay}.
 */
class ResponseReplayTests {

	@Test
	void headCarriesTheKeptStatusHeadersMarkerAndLengthButNoCookies() {
		StoredResponse stored = new StoredResponse(new byte[32], 201,
				List.of(Map.entry("Content-Type", "application/json"), Map.entry("Location", "/p/1"),
						Map.entry("Set-Cookie", "s=1"), Map.entry("Location", "/p/2")),
				new byte[] { 1, 2, 3 });
		List<String> written = new ArrayList<>();
		ResponseReplay.writeHead(stored, new ResponseReplay.Head() {

			@Override
			public void status(int status) {
				written.add("status " + status);
			}

			@Override
			public void contentType(String contentType) {
				written.add("content-type " + contentType);
			}

			@Override
			public void addHeader(String name, String value) {
				written.add("add " + name + "=" + value);
			}

			@Override
			public void setHeader(String name, String value) {
				written.add("set " + name + "=" + value);
			}

			@Override
			public void contentLength(int length) {
				written.add("length " + length);
			}

		});
		assertThat(written).containsExactly("status 201", "content-type application/json", "add Location=/p/1",
				"add Location=/p/2", "set Idempotent-Replayed=true", "length 3");
	}

}
