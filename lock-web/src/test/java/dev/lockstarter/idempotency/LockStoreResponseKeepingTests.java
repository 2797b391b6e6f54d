package dev.lockstarter.idempotency;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LockStoreResponseKeeping}, with a real in-memory lock store.
 */
class LockStoreResponseKeepingTests {

	private static final byte[] FINGERPRINT = new byte[32];

	private final LockTemplate locks = new LockTemplate(new InMemoryLockStore(), "lock:");

	private final LockStoreResponseKeeping keeping = new LockStoreResponseKeeping(new IdempotencyPolicy());

	@AfterEach
	void destroy() {
		this.locks.destroy();
	}

	@Test
	void keptResponseIsStoredWithTheLocksResultAndTheLockReleased() throws Exception {
		ResponseKeeping.InFlight inFlight = begin();
		inFlight.complete(response(201, "paid"), null);
		StoredResponse stored = StoredResponse
			.fromBytes(this.locks.results().orElseThrow().findResult("k").orElseThrow());
		assertThat(stored.status()).isEqualTo(201);
		assertThat(stored.matches(FINGERPRINT)).isTrue();
		assertThat(new String(stored.body(), StandardCharsets.UTF_8)).isEqualTo("paid");
		assertThat(this.locks.tryAcquire("k", Duration.ofSeconds(1)).isAcquired()).isTrue();
	}

	@Test
	void serverErrorKeepsNothingAndReleasesTheLock() throws Exception {
		begin().complete(response(500, "failed"), null);
		assertThat(this.locks.results().orElseThrow().findResult("k")).isEmpty();
		assertThat(this.locks.tryAcquire("k", Duration.ofSeconds(1)).isAcquired()).isTrue();
	}

	@Test
	void handlerExceptionKeepsNothingAndReleasesTheLock() throws Exception {
		begin().complete(response(200, "ok"), new IllegalStateException("handler failed"));
		assertThat(this.locks.results().orElseThrow().findResult("k")).isEmpty();
		assertThat(this.locks.tryAcquire("k", Duration.ofSeconds(1)).isAcquired()).isTrue();
	}

	@Test
	void missingBufferedResponseKeepsNothingAndReleasesTheLock() {
		begin().complete(null, null);
		assertThat(this.locks.results().orElseThrow().findResult("k")).isEmpty();
		assertThat(this.locks.tryAcquire("k", Duration.ofSeconds(1)).isAcquired()).isTrue();
	}

	private ResponseKeeping.InFlight begin() {
		return this.keeping.begin(this.locks.tryAcquire("k", Duration.ofSeconds(10)).lease(), FINGERPRINT,
				Duration.ofMinutes(5));
	}

	private static BufferedResponse response(int status, String body) throws Exception {
		BufferedResponse response = new BufferedResponse(new MockHttpServletResponse());
		response.hold(1024, true);
		response.setStatus(status);
		response.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
		return response;
	}

}
