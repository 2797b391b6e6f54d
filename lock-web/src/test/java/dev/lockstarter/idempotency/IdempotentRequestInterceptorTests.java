package dev.lockstarter.idempotency;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.util.StreamUtils;
import org.springframework.web.method.HandlerMethod;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link IdempotentRequestInterceptor} on servlet test doubles, with a real
 * in-memory lock store.
 */
class IdempotentRequestInterceptorTests {

	private final LockTemplate locks = new LockTemplate(new InMemoryLockStore(), "lock:");

	private final IdempotentRequestInterceptor interceptor = new IdempotentRequestInterceptor(() -> this.locks,
			() -> LockOptions.ttl(Duration.ofSeconds(10)), Duration.ofHours(24));

	@AfterEach
	void destroy() {
		this.locks.destroy();
	}

	@Test
	void lockKeysOfDistinctPrincipalAndKeyPairsDiffer() {
		Principal alice = () -> "alice";
		Principal aliceBob = () -> "alice:bob";
		assertThat(IdempotentRequestInterceptor.lockKey(alice, "bob:k"))
			.isNotEqualTo(IdempotentRequestInterceptor.lockKey(aliceBob, "k"));
		assertThat(IdempotentRequestInterceptor.lockKey(null, "k")).isEqualTo("idempotency:anonymous:k");
		assertThat(IdempotentRequestInterceptor.lockKey(() -> "anonymous", "k"))
			.isNotEqualTo(IdempotentRequestInterceptor.lockKey(null, "k"));
	}

	@Test
	void handlerReadsTheBodyAfterItWasFingerprinted() throws Exception {
		MockHttpServletRequest request = post("{\"amount\": 100}");
		BufferedBodyRequest buffered = new BufferedBodyRequest(request);
		BufferedResponse response = new BufferedResponse(new MockHttpServletResponse());
		assertThat(this.interceptor.preHandle(buffered, response, handler("pay"))).isTrue();
		assertThat(StreamUtils.copyToString(buffered.getInputStream(), StandardCharsets.UTF_8))
			.isEqualTo("{\"amount\": 100}");
		assertThat(this.locks.tryAcquire("idempotency:anonymous:k1", Duration.ofSeconds(1)).isAcquired()).isFalse();
		response.setStatus(201);
		response.getOutputStream().write("paid".getBytes(StandardCharsets.UTF_8));
		this.interceptor.afterCompletion(buffered, response, handler("pay"), null);
		assertThat(this.locks.results().orElseThrow().findResult("idempotency:anonymous:k1")).isPresent();
		assertThat(this.locks.tryAcquire("idempotency:anonymous:k1", Duration.ofSeconds(1)).isAcquired()).isTrue();
	}

	@Test
	void asynchronousHandlersAreRejected() {
		for (String name : new String[] { "callable", "deferred", "future" }) {
			assertThatIllegalStateException().isThrownBy(() -> this.interceptor.isIdempotent(handler(name)))
				.withMessageContaining("asynchronous handlers are not supported");
		}
	}

	@Test
	void invalidRetentionIsRejected() {
		assertThatIllegalStateException().isThrownBy(() -> this.interceptor.isIdempotent(handler("badRetention")))
			.withMessageContaining("invalid retention 'soon'");
		assertThatIllegalStateException().isThrownBy(() -> this.interceptor.isIdempotent(handler("zeroRetention")))
			.withMessageContaining("not positive");
	}

	@Test
	void methodsWithoutTheAnnotationAreNotIdempotent() throws Exception {
		assertThat(this.interceptor.isIdempotent(handler("plain"))).isFalse();
		assertThat(this.interceptor.isIdempotent(handler("pay"))).isTrue();
	}

	@Test
	void declarationsAndLockOptionsAreReported() {
		assertThat(this.interceptor.getAttribute(handler("pay")))
			.isEqualTo(new IdempotentRequestAttribute(Duration.ofHours(24), true));
		assertThat(this.interceptor.getAttribute(handler("refund")))
			.isEqualTo(new IdempotentRequestAttribute(Duration.ofMinutes(30), false));
		assertThat(this.interceptor.getAttribute(handler("plain"))).isNull();
		assertThat(this.interceptor.getLockOptions())
			.isEqualTo(LockOptions.ttl(Duration.ofSeconds(10)).withName("idempotency"));
	}

	@Test
	void setCookieCannotBeReplayed() {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> this.interceptor.setReplayedHeaders(java.util.List.of("Location", "set-cookie")));
	}

	private static MockHttpServletRequest post(String body) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/payments");
		request.setContentType("application/json");
		request.setContent(body.getBytes(StandardCharsets.UTF_8));
		request.addHeader(IdempotentRequestInterceptor.IDEMPOTENCY_KEY, "\"k1\"");
		return request;
	}

	private static HandlerMethod handler(String name) {
		for (Method method : IdempotentRequestAttributeSourceTests.Handlers.class.getDeclaredMethods()) {
			if (method.getName().equals(name)) {
				return new HandlerMethod(new IdempotentRequestAttributeSourceTests.Handlers(), method);
			}
		}
		throw new IllegalArgumentException(name);
	}

}
