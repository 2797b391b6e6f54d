package dev.lockstarter.core;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.LockStoreException;

import static org.assertj.core.api.Assertions.assertThat;

class StoreCallInterruptionTests {

	@Test
	void aNetworkTimeoutOfAJdbcDriverIsNotAnInterrupt() {
		LockStoreException timeout = new LockStoreException("k", "no answer",
				new SQLException("Socket timeout", new SocketTimeoutException("Read timed out")));
		assertThat(StoreCallInterruption.isInterruption(timeout)).isFalse();
	}

	@Test
	void anInterruptedInputOrOutputIsAnInterrupt() {
		LockStoreException interrupted = new LockStoreException("k", "interrupted",
				new SQLException("I/O", new InterruptedIOException()));
		assertThat(StoreCallInterruption.isInterruption(interrupted)).isTrue();
		assertThat(StoreCallInterruption.isInterruption(
				new LockStoreException("k", "interrupted", new IllegalStateException(new InterruptedException()))))
			.isTrue();
	}

}
