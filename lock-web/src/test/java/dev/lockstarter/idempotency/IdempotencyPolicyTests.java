package dev.lockstarter.idempotency;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.lockstarter.idempotency.IdempotentRequestListener.Outcome;
import dev.lockstarter.store.LockStoreException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link IdempotencyPolicy}, the rules shared by the servlet interceptor and
 * the reactive filter.
 */
class IdempotencyPolicyTests {

	private final IdempotencyPolicy policy = new IdempotencyPolicy();

	@Test
	void keyIsParsedFromASingleHeaderValue() {
		assertThat(this.policy.key(List.of("\"k-1\""))).isEqualTo("k-1");
		assertThat(this.policy.key(List.of("k-1"))).isEqualTo("k-1");
		assertThat(this.policy.key(List.of())).isNull();
		assertThat(this.policy.key(null)).isNull();
	}

	@Test
	void repeatedMalformedOrOverlongKeysAreRejected() {
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> this.policy.key(List.of("a", "b")))
			.withMessageContaining("more than one");
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> this.policy.key(List.of("\"open")))
			.satisfies((ex) -> assertThat(ex.isMissing()).isFalse());
		this.policy.setMaxKeyLength(3);
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> this.policy.key(List.of("abcd")))
			.withMessageContaining("at most 3 characters");
		assertThat(IdempotencyPolicy.missingKey().isMissing()).isTrue();
	}

	@Test
	void lockKeysAreScopedByTheEncodedPrincipalName() {
		assertThat(IdempotencyPolicy.lockKey(null, "k")).isEqualTo("idempotency:anonymous:k");
		assertThat(IdempotencyPolicy.lockKey("a:b c", "k")).isEqualTo("idempotency:user:a%3Ab+c:k");
	}

	@Test
	void serverErrorsAndStatusesThatAskToRetryAreNotKept() {
		assertThat(this.policy.isKept(201)).isTrue();
		assertThat(this.policy.isKept(422)).isTrue();
		assertThat(List.of(408, 409, 425, 429, 500, 503)).noneMatch(this.policy::isKept);
		this.policy.setStoreServerErrors(true);
		assertThat(this.policy.isKept(500)).isTrue();
		assertThat(this.policy.isKept(429)).isFalse();
	}

	@Test
	void captureKeepsTheContentTypeAndTheReplayedHeadersOnly() {
		Map<String, List<String>> headers = Map.of("Location", List.of("/p/1"), "Set-Cookie", List.of("s=1"), "X-Other",
				List.of("x"));
		StoredResponse stored = this.policy.capture(new byte[] { 1 }, 201, "application/json", headers::get,
				new byte[] { 2 });
		assertThat(stored.headers()).containsExactly(Map.entry("Content-Type", "application/json"),
				Map.entry("Location", "/p/1"));
		assertThatIllegalArgumentException().isThrownBy(() -> this.policy.setReplayedHeaders(List.of("Set-Cookie")));
	}

	@Test
	void cookiesKeptByAnOlderConfigurationAreNeverReplayed() {
		StoredResponse stored = new StoredResponse(new byte[0], 200,
				List.of(Map.entry("Set-Cookie", "s=1"), Map.entry("ETag", "\"v1\"")), new byte[0]);
		assertThat(IdempotencyPolicy.replayedHeaders(stored)).containsExactly(Map.entry("ETag", "\"v1\""));
	}

	@Test
	void rejectionsMapToTheirOutcomes() {
		assertThat(IdempotencyPolicy.outcomeOf(IdempotencyPolicy.missingKey())).isEqualTo(Outcome.INVALID);
		assertThat(IdempotencyPolicy.outcomeOf(new IdempotentRequestTooLargeException(1))).isEqualTo(Outcome.INVALID);
		assertThat(IdempotencyPolicy.outcomeOf(new IdempotencyKeyReusedException())).isEqualTo(Outcome.KEY_REUSED);
		assertThat(
				IdempotencyPolicy.outcomeOf(new LockStoreException("idempotency", "down", new IllegalStateException())))
			.isEqualTo(Outcome.STORE_ERROR);
		assertThat(IdempotencyPolicy.outcomeOf(new IllegalStateException())).isNull();
	}

}
