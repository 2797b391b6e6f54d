package dev.lockstarter.idempotency;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServletRequestWrapper;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.util.StreamUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link BufferedBodyRequest}: the body is buffered as it arrives, within the
 * limit.
 */
class BufferedBodyRequestTests {

	private static final long MAX_BODY_SIZE = 64 * 1024 * 1024;

	@Test
	void declaredContentLengthIsNotAllocatedBeforeTheBytesArrive() throws Exception {
		for (long declared : new long[] { MAX_BODY_SIZE / 2, MAX_BODY_SIZE }) {
			BufferedBodyRequest request = new BufferedBodyRequest(declaring(declared, "{\"amount\": 1}"));
			long allocated = allocatedBytes(() -> request.body(MAX_BODY_SIZE));
			assertThat(request.body(MAX_BODY_SIZE)).asString(StandardCharsets.UTF_8).isEqualTo("{\"amount\": 1}");
			assertThat(allocated).as("bytes allocated to read 13 bytes declared as %d", declared)
				.isLessThan(1024 * 1024);
		}
	}

	@Test
	void bufferGrowsWithTheBytesThatArrive() throws Exception {
		BufferedBodyRequest request = new BufferedBodyRequest(declaring(MAX_BODY_SIZE, "x".repeat(1000)));
		assertThat(request.body(MAX_BODY_SIZE)).hasSize(1000);
		assertThat(request.bufferCapacity()).isBetween(1000, 2048);
	}

	@Test
	void bodyOverTheLimitIsRejectedWhetherOrNotItsLengthIsDeclared() {
		assertThatExceptionOfType(IdempotentRequestTooLargeException.class)
			.isThrownBy(() -> new BufferedBodyRequest(declaring(101, "x".repeat(101))).body(100));
		assertThatExceptionOfType(IdempotentRequestTooLargeException.class)
			.isThrownBy(() -> new BufferedBodyRequest(declaring(-1, "x".repeat(101))).body(100));
		assertThatExceptionOfType(IdempotentRequestTooLargeException.class)
			.isThrownBy(() -> new BufferedBodyRequest(declaring(10, "x".repeat(101))).body(100));
	}

	@Test
	void handlerReadsTheBufferedBody() throws Exception {
		BufferedBodyRequest request = new BufferedBodyRequest(declaring(-1, "x".repeat(100)));
		assertThat(request.body(100)).hasSize(100);
		assertThat(StreamUtils.copyToString(request.getInputStream(), StandardCharsets.UTF_8))
			.isEqualTo("x".repeat(100));
	}

	private static HttpServletRequestWrapper declaring(long contentLength, String body) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/payments");
		request.setContent(body.getBytes(StandardCharsets.UTF_8));
		return new HttpServletRequestWrapper(request) {

			@Override
			public long getContentLengthLong() {
				return contentLength;
			}

			@Override
			public int getContentLength() {
				return (int) Math.min(contentLength, Integer.MAX_VALUE);
			}

		};
	}

	/**
	 * Measure the heap bytes that the current thread allocates while running an action.
	 */
	private static long allocatedBytes(ThrowingRunnable action) throws Exception {
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
		long before = threads.getCurrentThreadAllocatedBytes();
		action.run();
		return threads.getCurrentThreadAllocatedBytes() - before;
	}

	@FunctionalInterface
	interface ThrowingRunnable {

		void run() throws Exception;

	}

}
