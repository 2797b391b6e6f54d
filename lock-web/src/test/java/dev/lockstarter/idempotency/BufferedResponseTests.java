package dev.lockstarter.idempotency;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link BufferedResponse}: untouched until held, then held up to a bound.
 */
class BufferedResponseTests {

	private final MockHttpServletResponse client = new MockHttpServletResponse();

	private final BufferedResponse response = new BufferedResponse(this.client);

	@Test
	void responseThatIsNotHeldPassesThroughAsItIsWritten() throws Exception {
		this.response.getOutputStream().write(bytes("first"));
		this.response.flushBuffer();
		assertThat(this.client.getContentAsString()).isEqualTo("first");
		assertThat(this.client.isCommitted()).isTrue();
		this.response.send();
		assertThat(this.client.getContentAsString()).isEqualTo("first");
		assertThat(this.response.isHeld()).isFalse();
	}

	@Test
	void heldResponseGoesOutOnlyWhenSentWithItsLength() throws Exception {
		this.response.hold(100, true);
		this.response.setContentLength(4);
		PrintWriter writer = this.response.getWriter();
		writer.write("pa");
		this.response.getOutputStream().flush();
		writer.write("id");
		this.response.flushBuffer();
		assertThat(this.client.getContentAsString()).isEmpty();
		assertThat(this.client.isCommitted()).isFalse();
		writer.flush();
		assertThat(this.response.getBody()).asString(StandardCharsets.ISO_8859_1).isEqualTo("paid");
		this.response.send();
		assertThat(this.client.getContentAsString()).isEqualTo("paid");
		assertThat(this.client.getContentLength()).isEqualTo(4);
	}

	@Test
	void bodyPastTheBoundStreamsInOrderAndIsNotKept() throws Exception {
		this.response.hold(10, true);
		this.response.setContentLength(25);
		this.response.getOutputStream().write(bytes("0123456789"));
		assertThat(this.client.getContentAsString()).isEmpty();
		this.response.getOutputStream().write(bytes("abcde"));
		assertThat(this.client.getContentAsString()).isEqualTo("0123456789abcde");
		assertThat(this.client.getContentLength()).isEqualTo(25);
		this.response.getOutputStream().write(bytes("fghijklmno"));
		this.response.send();
		assertThat(this.client.getContentAsString()).isEqualTo("0123456789abcdefghijklmno");
		assertThat(this.response.isOverflowed()).isTrue();
		assertThat(this.response.getBodySize()).isEqualTo(25);
		assertThat(this.response.getBody()).isEmpty();
	}

	@Test
	void bodyPastTheBoundIsDroppedWhenItMustNotStreamSoThatItCanBeReplaced() throws Exception {
		this.response.hold(10, false);
		this.response.getOutputStream().write(bytes("0123456789abcde"));
		this.response.getOutputStream().write(bytes("fghij"));
		assertThat(this.response.isOverflowed()).isTrue();
		assertThat(this.response.getBodySize()).isEqualTo(20);
		assertThat(this.client.getContentAsString()).isEmpty();
		assertThat(this.client.isCommitted()).isFalse();
		this.response.reset();
		this.response.setStatus(503);
		this.response.getOutputStream().write(bytes("retry"));
		this.response.send();
		assertThat(this.client.getStatus()).isEqualTo(503);
		assertThat(this.client.getContentAsString()).isEqualTo("retry");
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.ISO_8859_1);
	}

}
