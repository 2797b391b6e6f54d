package dev.lockstarter.server;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

import jakarta.servlet.Filter;
import jakarta.servlet.Servlet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static dev.lockstarter.server.LockServers.ALPHA_KEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How {@link LockServlet} answers an acquisition, in a server on a real Redis, behind the
 * API key filter: one that does not wait is answered on the request thread, granted or
 * refused, without asynchronous processing; only one that waits starts asynchronous
 * processing, and its answer is written when the lock is granted.
 */
class AcquisitionDispatchTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static LockServers servers;

	private static Filter apiKeys;

	private static Servlet locks;

	@BeforeAll
	static void startServer() {
		servers = LockServers.onRedis(1, redis.port());
		ApplicationContext context = servers.context(0);
		apiKeys = context.getBean("apiKeyFilter", FilterRegistrationBean.class).getFilter();
		locks = context.getBean("lockServlet", ServletRegistrationBean.class).getServlet();
	}

	@AfterAll
	static void stopServer() {
		servers.close();
	}

	@Test
	void anAcquisitionWithoutAWaitIsAnsweredWithoutAsynchronousProcessing() throws Exception {
		String key = key();
		MockHttpServletRequest first = acquire(key, null);
		MockHttpServletResponse acquired = perform(first);
		assertThat(first.isAsyncStarted()).isFalse();
		assertThat(acquired.getStatus()).isEqualTo(201);
		assertThat(acquired.getHeader("Location")).isEqualTo("/v1/namespaces/tests/locks/" + key);
		assertThat(acquired.getContentType()).isEqualTo("application/json");
		assertThat(ownerToken(acquired)).hasSize(22);
		MockHttpServletRequest second = acquire(key, "{\"waitMillis\":0}");
		MockHttpServletResponse refused = perform(second);
		assertThat(second.isAsyncStarted()).isFalse();
		assertThat(refused.getStatus()).isEqualTo(409);
		assertThat(refused.getContentType()).isEqualTo("application/problem+json");
		assertThat(refused.getContentAsString()).containsPattern("\"timeToExpiryMillis\":[0-9]+");
		release(key, acquired);
	}

	@Test
	void anAcquisitionThatWaitsIsAnsweredAsynchronouslyWhenTheLockIsGranted() throws Exception {
		String key = key();
		MockHttpServletResponse held = perform(acquire(key, null));
		assertThat(held.getStatus()).isEqualTo(201);
		MockHttpServletRequest waiting = acquire(key, "{\"waitMillis\":5000}");
		MockHttpServletResponse waited = perform(waiting);
		assertThat(waiting.isAsyncStarted()).isTrue();
		assertThat(waited.getStatus()).isEqualTo(200);
		assertThat(waited.getContentAsString()).isEmpty();
		release(key, held);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(
					() -> assertThat(waiting.isAsyncStarted()).as("answered within 5 s of the release").isFalse());
		assertThat(waited.getStatus()).isEqualTo(201);
		release(key, waited);
	}

	private static MockHttpServletResponse perform(MockHttpServletRequest request) throws Exception {
		MockHttpServletResponse response = new MockHttpServletResponse();
		new MockFilterChain(locks, apiKeys).doFilter(request, response);
		return response;
	}

	private static MockHttpServletRequest acquire(String key, String body) {
		MockHttpServletRequest request = request("POST", key);
		if (body != null) {
			request.setContentType("application/json");
			request.setContent(body.getBytes(StandardCharsets.UTF_8));
		}
		return request;
	}

	private static void release(String key, MockHttpServletResponse acquired) throws Exception {
		MockHttpServletRequest release = request("DELETE", key);
		release.addHeader(LockResource.OWNER_TOKEN, ownerToken(acquired));
		assertThat(perform(release).getStatus()).isEqualTo(204);
	}

	private static MockHttpServletRequest request(String method, String key) {
		String uri = "/v1/namespaces/tests/locks/" + key;
		MockHttpServletRequest request = new MockHttpServletRequest(method, uri);
		request.setServletPath("/v1/namespaces");
		request.setPathInfo(uri.substring("/v1/namespaces".length()));
		request.addHeader("Authorization", "Bearer " + ALPHA_KEY);
		request.setAsyncSupported(true);
		return request;
	}

	private static String ownerToken(MockHttpServletResponse acquired) throws Exception {
		return acquired.getContentAsString().replaceAll(".*\"ownerToken\":\"([^\"]+)\".*", "$1");
	}

	private static String key() {
		return "dispatch-" + UUID.randomUUID();
	}

}
