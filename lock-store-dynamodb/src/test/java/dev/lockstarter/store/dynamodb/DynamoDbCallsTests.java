package dev.lockstarter.store.dynamodb;

import java.net.URI;
import java.util.concurrent.CancellationException;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import dev.lockstarter.store.LockStoreException;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for how {@link DynamoDbCalls} reports a call that failed before it reached
 * DynamoDB.
 */
class DynamoDbCallsTests {

	@Test
	void aConnectionWaitCancelledByAnInterruptFailsAsAnInterruptedCall() {
		// A client that is never called: the call below fails before it
		try (DynamoDbClient client = SharedDynamoDbStore.clientOf(URI.create("http://127.0.0.1:9")).build()) {
			assertFailsAsInterrupted(new DynamoDbCalls(client, "locks"));
		}
	}

	private static void assertFailsAsInterrupted(DynamoDbCalls calls) {
		// What the Apache client's pool throws past the SDK when the thread waiting for a
		// connection was interrupted
		assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> calls.call("acquire", "k", () -> {
			throw new CancellationException();
		}))
			.withMessageContaining("failed to acquire lock 'k'")
			.havingCause()
			.isInstanceOf(InterruptedException.class)
			.withCauseInstanceOf(CancellationException.class);
	}

}
