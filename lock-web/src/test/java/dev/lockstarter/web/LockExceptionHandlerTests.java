package dev.lockstarter.web;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.lockstarter.core.InvalidLockKeyException;
import dev.lockstarter.core.LeaseLostException;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockTtlTooShortException;
import dev.lockstarter.core.SharedFailureException;
import dev.lockstarter.idempotency.IdempotencyKeyReusedException;
import dev.lockstarter.idempotency.IdempotentRequestInProgressException;
import dev.lockstarter.idempotency.IdempotentRequestTooLargeException;
import dev.lockstarter.idempotency.InvalidIdempotencyKeyException;
import dev.lockstarter.store.LockStoreException;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link LockExceptionHandler}.
 */
class LockExceptionHandlerTests {

	private final LockExceptionHandler handler = new LockExceptionHandler();

	@Test
	void retryAfterIsTheRemainingTtlRoundedUpToWholeSecondsAndAtLeastOne() {
		assertThat(LockExceptionHandler.retryAfterSeconds(Duration.ZERO)).isEqualTo(1);
		assertThat(LockExceptionHandler.retryAfterSeconds(Duration.ofMillis(1))).isEqualTo(1);
		assertThat(LockExceptionHandler.retryAfterSeconds(Duration.ofMillis(1000))).isEqualTo(1);
		assertThat(LockExceptionHandler.retryAfterSeconds(Duration.ofMillis(1001))).isEqualTo(2);
		assertThat(LockExceptionHandler.retryAfterSeconds(Duration.ofSeconds(30))).isEqualTo(30);
	}

	@Test
	void conflictUsesTheDefaultStatusUnlessTheMethodSetsOne() {
		ResponseEntity<ProblemDetail> byDefault = this.handler
			.handleLockConflict(new LockConflictException("users", Duration.ofMillis(2500)));
		assertThat(byDefault.getStatusCode().value()).isEqualTo(409);
		assertThat(byDefault.getHeaders().getFirst("Retry-After")).isEqualTo("3");
		assertThat(byDefault.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(byDefault.getBody().getType()).isEqualTo(LockProblemTypes.LOCK_CONFLICT);
		assertThat(byDefault.getBody().getStatus()).isEqualTo(409);
		ResponseEntity<ProblemDetail> overridden = this.handler
			.handleLockConflict(new LockConflictException("users", Duration.ofMillis(2500), 422));
		assertThat(overridden.getStatusCode().value()).isEqualTo(422);
		assertThat(overridden.getBody().getStatus()).isEqualTo(422);
	}

	@Test
	void idempotencyRejectionsHaveTheirOwnStatusesAndTypes() {
		ResponseEntity<ProblemDetail> missing = this.handler
			.handleInvalidIdempotencyKey(new InvalidIdempotencyKeyException("No key.", true));
		assertThat(missing.getStatusCode().value()).isEqualTo(400);
		assertThat(missing.getBody().getType()).isEqualTo(LockProblemTypes.INVALID_IDEMPOTENCY_KEY);
		assertThat(missing.getBody().getTitle()).isEqualTo("Idempotency key missing");
		ResponseEntity<ProblemDetail> inProgress = this.handler
			.handleIdempotentRequestInProgress(new IdempotentRequestInProgressException(Duration.ofMillis(1200)));
		assertThat(inProgress.getStatusCode().value()).isEqualTo(409);
		assertThat(inProgress.getHeaders().getFirst("Retry-After")).isEqualTo("2");
		assertThat(inProgress.getBody().getType()).isEqualTo(LockProblemTypes.IDEMPOTENT_REQUEST_IN_PROGRESS);
		ResponseEntity<ProblemDetail> reused = this.handler
			.handleIdempotencyKeyReused(new IdempotencyKeyReusedException());
		assertThat(reused.getStatusCode().value()).isEqualTo(422);
		assertThat(reused.getBody().getType()).isEqualTo(LockProblemTypes.IDEMPOTENCY_KEY_REUSED);
		ResponseEntity<ProblemDetail> tooLarge = this.handler
			.handleIdempotentRequestTooLarge(new IdempotentRequestTooLargeException(1024));
		assertThat(tooLarge.getStatusCode().value()).isEqualTo(413);
		assertThat(tooLarge.getBody().getType()).isEqualTo(LockProblemTypes.IDEMPOTENT_REQUEST_TOO_LARGE);
		for (ResponseEntity<ProblemDetail> response : java.util.List.of(missing, inProgress, reused, tooLarge)) {
			assertThat(response.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
			assertThat(response.getBody().getStatus()).isEqualTo(response.getStatusCode().value());
		}
	}

	@Test
	void invalidKeyIsABadRequestThatRevealsNoInternals() {
		ResponseEntity<ProblemDetail> response = this.handler.handleInvalidLockKey(
				new InvalidLockKeyException("users", "Key expression '#userName' evaluated to null", null));
		assertThat(response.getStatusCode().value()).isEqualTo(400);
		assertThat(response.getBody().getType()).isEqualTo(LockProblemTypes.INVALID_LOCK_KEY);
		assertThat(response.getBody().getDetail()).doesNotContain("#userName");
	}

	@Test
	void storeFailureIsServiceUnavailable() {
		ResponseEntity<ProblemDetail> response = this.handler.handleLockStoreFailure(
				new LockStoreException("lock:users:alice", "Redis down", new RuntimeException("refused")));
		assertThat(response.getStatusCode().value()).isEqualTo(503);
		assertThat(response.getBody().getType()).isEqualTo(LockProblemTypes.LOCK_STORE_UNAVAILABLE);
		assertThat(response.getBody().getDetail()).doesNotContain("alice").doesNotContain("refused");
	}

	@Test
	void ttlTooShortIsServiceUnavailableOfItsOwnTypeWithoutTheKey() {
		LockTtlTooShortException ex = new LockTtlTooShortException("users:alice", Duration.ofMillis(40),
				Duration.ofMillis(163));
		ResponseEntity<ProblemDetail> response = this.handler.handleException(ex);
		assertThat(response.getStatusCode().value()).isEqualTo(503);
		assertThat(response.getHeaders().getFirst("Retry-After")).isEqualTo("1");
		assertThat(response.getBody().getType()).isEqualTo(LockProblemTypes.LOCK_TTL_TOO_SHORT);
		assertThat(response.getBody().getTitle()).isEqualTo("Lock time-to-live too short");
		assertThat(response.getBody().getDetail()).doesNotContain("alice");
	}

	@Test
	void leaseLostIsServiceUnavailableByDefaultWithoutTheKey() {
		ResponseEntity<ProblemDetail> response = this.handler
			.handleLeaseLost(new LeaseLostException("users", "users:alice", "its renewal found the lock expired"));
		assertThat(response.getStatusCode().value()).isEqualTo(503);
		assertThat(response.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(response.getHeaders().getFirst("Retry-After")).isEqualTo("1");
		assertThat(response.getBody().getType()).isEqualTo(LockProblemTypes.LEASE_LOST);
		assertThat(response.getBody().getDetail()).doesNotContain("alice");
	}

	@Test
	void leaseLostIsConflictWhenChosen() {
		this.handler.setLeaseLostStatus(409);
		LeaseLostException lost = new LeaseLostException("users", "users:alice", "expired");
		assertThat(this.handler.handleException(lost).getStatusCode().value()).isEqualTo(409);
		assertThatIllegalArgumentException().isThrownBy(() -> this.handler.setLeaseLostStatus(500));
	}

	@Test
	void defaultStatusMustBeAClientError() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LockExceptionHandler(503));
	}

	@Test
	void sharedFailureAnswersWithTheHoldersStatusAndShowsOnlyClientErrorMessages() {
		ResponseEntity<ProblemDetail> clientError = this.handler.handleSharedFailure(
				new SharedFailureException("quotes", "com.example.QuotaExceeded", "quota used up", 429));
		assertThat(clientError.getStatusCode().value()).isEqualTo(429);
		assertThat(clientError.getBody().getType()).isEqualTo(LockProblemTypes.SHARED_FAILURE);
		assertThat(clientError.getBody().getDetail()).isEqualTo("quota used up");
		ResponseEntity<ProblemDetail> serverError = this.handler
			.handleSharedFailure(new SharedFailureException("quotes", "com.example.Boom", "db password wrong", 502));
		assertThat(serverError.getStatusCode().value()).isEqualTo(502);
		assertThat(serverError.getBody().getDetail()).doesNotContain("password");
		ResponseEntity<ProblemDetail> noStatus = this.handler
			.handleSharedFailure(new SharedFailureException("quotes", "com.example.Boom", null, 0));
		assertThat(noStatus.getStatusCode().value()).isEqualTo(500);
		assertThat(noStatus.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
	}

}
