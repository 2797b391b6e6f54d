package dev.lockstarter.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.idempotency.IdempotentRequest;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.OncePerRequestFilter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * What the Spring MVC idempotency filter holds in memory, on a real Tomcat and a real
 * Redis: only requests whose handler is an {@link IdempotentRequest} are buffered, and
 * the response kept for replays is bounded by {@code lock.idempotency.max-response-size}.
 * Memory is measured as the heap bytes that the request thread allocates while it serves
 * the request ({@code com.sun.management.ThreadMXBean}).
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotentResponseBufferingIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final int FIVE_MEGABYTES = 5 * 1024 * 1024;

	/** Far below the 5 MB streamed, far above what serving a request allocates. */
	private static final long NOT_BUFFERED = 1024 * 1024;

	static final AtomicInteger runs = new AtomicInteger();

	static final Map<String, CompletableFuture<Long>> allocated = new ConcurrentHashMap<>();

	static volatile CountDownLatch clientSawFirstChunk = new CountDownLatch(1);

	static volatile CompletableFuture<Boolean> handlerWaitedForTheClient = new CompletableFuture<>();

	private static final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	private static int port;

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	@BeforeAll
	static void start() {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
			.properties("server.port=0", "spring.main.banner-mode=off", "lock.store=redis",
					"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.timeout=1s", "lock.idempotency.max-response-size=1KB")
			.run();
		contexts.add(context);
		port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

	@AfterAll
	static void close() {
		contexts.forEach(ConfigurableApplicationContext::close);
	}

	@BeforeEach
	void reset() {
		runs.set(0);
		clientSawFirstChunk = new CountDownLatch(1);
		handlerWaitedForTheClient = new CompletableFuture<>();
	}

	@Test
	void responseToAnUnannotatedHandlerReachesTheClientWhileTheHandlerIsStillWriting() throws Exception {
		CompletableFuture<HttpResponse<InputStream>> pending = this.http.sendAsync(
				request("/export?size=" + FIVE_MEGABYTES, UUID.randomUUID().toString(), "{}").build(),
				HttpResponse.BodyHandlers.ofInputStream());
		HttpResponse<InputStream> response;
		try {
			response = pending.get(5, TimeUnit.SECONDS);
		}
		catch (TimeoutException ex) {
			fail("No response while the handler waits for the client to see its first chunk: the response is held");
			return;
		}
		try (InputStream body = response.body()) {
			byte[] first = body.readNBytes(8192);
			assertThat(first).hasSize(8192);
			clientSawFirstChunk.countDown();
			long rest = body.transferTo(OutputStream.nullOutputStream());
			assertThat(first.length + rest).isEqualTo(FIVE_MEGABYTES);
		}
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(handlerWaitedForTheClient.get(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void fiveMegabyteResponseToAnUnannotatedHandlerIsNotHeldInMemory() throws Exception {
		clientSawFirstChunk.countDown();
		String measure = UUID.randomUUID().toString();
		HttpResponse<byte[]> response = send(
				request("/export?size=" + FIVE_MEGABYTES, UUID.randomUUID().toString(), "{}")
					.header("X-Measure", measure)
					.build());
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).hasSize(FIVE_MEGABYTES);
		assertThat(allocated.get(measure).get(10, TimeUnit.SECONDS))
			.as("heap bytes allocated by the request thread while it sent 5 MB")
			.isLessThan(NOT_BUFFERED);
	}

	@Test
	void responseWithinTheBoundIsKeptAndReplayed() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<byte[]> original = send(request("/reports?size=1000", key, "{}").build());
		HttpResponse<byte[]> retry = send(request("/reports?size=1000", key, "{}").build());
		assertThat(original.body()).hasSize(1000);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(retry.body()).isEqualTo(original.body());
		assertThat(runs).hasValue(1);
	}

	@Test
	void responseOverTheBoundIsSentInFullButNotKeptSoARetryRunsAgain(CapturedOutput output) throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<byte[]> original = send(request("/reports?size=3000", key, "{}").build());
		HttpResponse<byte[]> retry = send(request("/reports?size=3000", key, "{}").build());
		assertThat(original.statusCode()).isEqualTo(200);
		assertThat(original.body()).hasSize(3000).containsOnly((byte) 'r');
		assertThat(retry.statusCode()).isEqualTo(200);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(retry.body()).hasSize(3000);
		assertThat(runs).hasValue(2);
		assertThat(output).contains("WARN")
			.contains("ReportController.report")
			.contains("3000 bytes")
			.contains("lock.idempotency.max-response-size")
			.doesNotContain("rrrrrrrr");
	}

	@Test
	void fiveMegabyteResponseOverTheBoundIsStreamedNotHeld() throws Exception {
		String key = UUID.randomUUID().toString();
		String measure = UUID.randomUUID().toString();
		HttpResponse<byte[]> response = send(
				request("/reports?size=" + FIVE_MEGABYTES, key, "{}").header("X-Measure", measure).build());
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).hasSize(FIVE_MEGABYTES);
		assertThat(allocated.get(measure).get(10, TimeUnit.SECONDS))
			.as("heap bytes allocated by the request thread while it sent 5 MB over a 1 KB bound")
			.isLessThan(NOT_BUFFERED);
		HttpResponse<byte[]> retry = send(request("/reports?size=10", key, "{}").build());
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(runs).hasValue(2);
	}

	private HttpRequest.Builder request(String path, String key, String body) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(20))
			.header("Content-Type", "application/json")
			.header("Idempotency-Key", key)
			.POST(HttpRequest.BodyPublishers.ofString(body));
	}

	private HttpResponse<byte[]> send(HttpRequest request) throws IOException, InterruptedException {
		return this.http.send(request, HttpResponse.BodyHandlers.ofByteArray());
	}

	/**
	 * Write {@code size} bytes of {@code fill} in 8 KB chunks from one array, so that the
	 * handler itself allocates almost nothing; after the first chunk, flush and wait for
	 * the client to have seen it.
	 */
	static void write(HttpServletResponse response, int size, byte fill) throws IOException {
		response.setContentType("application/octet-stream");
		byte[] chunk = new byte[8192];
		Arrays.fill(chunk, fill);
		OutputStream out = response.getOutputStream();
		int written = 0;
		while (written < size) {
			int length = Math.min(chunk.length, size - written);
			out.write(chunk, 0, length);
			written += length;
			if (written == length) {
				out.flush();
				try {
					handlerWaitedForTheClient.complete(clientSawFirstChunk.await(10, TimeUnit.SECONDS));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IOException(ex);
				}
			}
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ ExportController.class, ReportController.class, AllocationFilter.class })
	static class App {

	}

	@RestController
	static class ExportController {

		@PostMapping("/export")
		void export(@RequestBody String body, @RequestParam int size, HttpServletResponse response) throws IOException {
			write(response, size, (byte) 'e');
		}

	}

	@RestController
	static class ReportController {

		@PostMapping("/reports")
		@IdempotentRequest
		void report(@RequestBody String body, @RequestParam int size, HttpServletResponse response) throws IOException {
			runs.incrementAndGet();
			clientSawFirstChunk.countDown();
			write(response, size, (byte) 'r');
		}

	}

	/**
	 * Records the heap bytes that the request thread allocates while the rest of the
	 * filter chain, the idempotency filter among it, serves a request with an
	 * {@code X-Measure} header.
	 */
	@Order(Ordered.HIGHEST_PRECEDENCE)
	static class AllocationFilter extends OncePerRequestFilter {

		@Override
		protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
				throws ServletException, IOException {
			String measure = request.getHeader("X-Measure");
			if (measure == null) {
				chain.doFilter(request, response);
				return;
			}
			com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory
				.getThreadMXBean();
			long before = threads.getCurrentThreadAllocatedBytes();
			try {
				chain.doFilter(request, response);
			}
			finally {
				allocated.computeIfAbsent(measure, (m) -> new CompletableFuture<>())
					.complete(threads.getCurrentThreadAllocatedBytes() - before);
			}
		}

	}

}
