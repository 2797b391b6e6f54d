package dev.lockstarter.interceptor;

import java.io.IOException;
import java.lang.reflect.Method;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

import dev.lockstarter.core.SharedFailureException;
import org.springframework.http.HttpStatus;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.server.ResponseStatusException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link SharedResult} and {@link SharedFailures}.
 */
class SharedResultTests {

	private final Method method = ReflectionUtils.findMethod(Service.class, "call");

	@Test
	void valueRecordRoundTripsWithItsIdAndBytes() {
		SharedResult value = SharedResult.value(new byte[] { 1, 2, 3 });
		SharedResult read = SharedResult.fromBytes(value.toBytes());
		assertThat(read.id()).isEqualTo(value.id());
		assertThat(read.kind()).isEqualTo(SharedResult.Kind.VALUE);
		assertThat(read.valueBytes()).containsExactly(1, 2, 3);
	}

	@Test
	void everyRecordHasItsOwnId() {
		assertThat(SharedResult.completion().id()).isNotEqualTo(SharedResult.completion().id());
		assertThat(SharedResult.idOf(null)).isNull();
		assertThat(SharedResult.idOf(new byte[] { 9, 9 })).isNull();
	}

	@Test
	void bytesOfAnotherFormatAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> SharedResult.fromBytes("{\"sum\":3}".getBytes()));
		byte[] truncated = SharedResult.value(new byte[10]).toBytes();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> SharedResult.fromBytes(java.util.Arrays.copyOf(truncated, truncated.length - 3)));
	}

	@Test
	void failureKeepsTypeMessageAndAnnotatedStatus() {
		SharedResult record = roundTrip(SharedFailures.record(new QuotaExceededException("quota used up")));
		assertThat(record.failureType()).isEqualTo(QuotaExceededException.class.getName());
		assertThat(record.failureMessage()).isEqualTo("quota used up");
		assertThat(record.status()).isEqualTo(429);
		assertThat(SharedFailures.recreate(record, this.method, "quotes")).isInstanceOf(QuotaExceededException.class)
			.hasMessage("quota used up");
	}

	@Test
	void responseStatusExceptionIsCreatedAgainWithItsStatusAndReason() {
		SharedResult record = roundTrip(
				SharedFailures.record(new ResponseStatusException(HttpStatus.NOT_FOUND, "no such quote")));
		assertThat(SharedFailures.recreate(record, this.method, "quotes"))
			.isInstanceOfSatisfying(ResponseStatusException.class, (ex) -> {
				assertThat(ex.getStatusCode().value()).isEqualTo(404);
				assertThat(ex.getReason()).isEqualTo("no such quote");
			});
	}

	@Test
	void declaredCheckedExceptionIsCreatedAgainButAnUndeclaredOneIsNot() {
		SharedResult declared = roundTrip(SharedFailures.record(new IOException("disk full")));
		assertThat(SharedFailures.recreate(declared, this.method, "quotes")).isInstanceOf(IOException.class)
			.hasMessage("disk full");
		SharedResult undeclared = roundTrip(SharedFailures.record(new TimeoutException("slow")));
		assertThat(SharedFailures.recreate(undeclared, this.method, "quotes"))
			.isInstanceOfSatisfying(SharedFailureException.class, (ex) -> {
				assertThat(ex.getFailureType()).isEqualTo(TimeoutException.class.getName());
				assertThat(ex.getFailureMessage()).isEqualTo("slow");
				assertThat(ex.getStatus()).isZero();
			});
	}

	@Test
	void errorsAndUnknownTypesBecomeASharedFailure() {
		SharedResult error = roundTrip(SharedFailures.record(new OutOfMemoryError("heap")));
		assertThat(SharedFailures.recreate(error, this.method, "quotes")).isInstanceOf(SharedFailureException.class);
		SharedResult unknown = roundTrip(SharedResult.failure("com.example.Gone", "gone", 410));
		assertThat(SharedFailures.recreate(unknown, this.method, "quotes"))
			.isInstanceOfSatisfying(SharedFailureException.class, (ex) -> assertThat(ex.getStatus()).isEqualTo(410));
	}

	@Test
	void typeThatIsNotAnExceptionIsNeverInstantiated() {
		SharedResult record = roundTrip(SharedResult.failure(StringBuilder.class.getName(), "x", 0));
		assertThat(SharedFailures.recreate(record, this.method, "quotes")).isInstanceOf(SharedFailureException.class);
	}

	@Test
	void longMessagesAreShortened() {
		SharedResult record = roundTrip(SharedResult.failure("x.Y", "m".repeat(10_000), 0));
		assertThat(record.failureMessage()).hasSize(2000);
	}

	private static SharedResult roundTrip(SharedResult record) {
		return SharedResult.fromBytes(record.toBytes());
	}

	static class Service {

		public String call() throws IOException {
			return "";
		}

	}

	@ResponseStatus(HttpStatus.TOO_MANY_REQUESTS)
	public static class QuotaExceededException extends RuntimeException {

		public QuotaExceededException(String message) {
			super(message);
		}

	}

}
