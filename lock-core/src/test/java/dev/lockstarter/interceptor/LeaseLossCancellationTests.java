package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.annotation.OnLeaseLost;
import dev.lockstarter.core.LeaseLostException;
import dev.lockstarter.core.LossNotifyingLease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link LeaseLossCancellation}, on a lease whose loss the test tells, and for
 * the startup checks of {@code onLeaseLost = CANCEL}.
 */
class LeaseLossCancellationTests {

	private final TellableLease lease = new TellableLease();

	@Test
	void lossWhileTheMethodRunsInterruptsItAndTheCallerGetsLeaseLostExceptionWithTheInterruptCleared() {
		CountDownLatch running = new CountDownLatch(1);
		Thread teller = new Thread(() -> {
			await(running);
			this.lease.tell("its renewal found the lock expired");
		});
		teller.start();
		LeaseLossCancellation.Work sleeper = () -> {
			running.countDown();
			Thread.sleep(30_000);
			return "done";
		};
		assertThatExceptionOfType(LeaseLostException.class)
			.isThrownBy(() -> LeaseLossCancellation.run(sleeper, this.lease, "exports"))
			.satisfies((ex) -> {
				assertThat(ex.getLockName()).isEqualTo("exports");
				assertThat(ex.getKey()).isEqualTo("exports:42");
				assertThat(ex.getMessage()).contains("its renewal found the lock expired");
				assertThat(ex.getSuppressed()).singleElement().isInstanceOf(InterruptedException.class);
			});
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
	}

	@Test
	void lossAfterTheMethodReturnedInterruptsNothing() throws Throwable {
		assertThat(LeaseLossCancellation.run(() -> "done", this.lease, "exports")).isEqualTo("done");
		this.lease.tell("expired");
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
	}

	@Test
	void anInterruptThatWasThereBeforeTheCallIsKept() {
		Thread.currentThread().interrupt();
		try {
			assertThatExceptionOfType(LeaseLostException.class)
				.isThrownBy(() -> LeaseLossCancellation.run(() -> this.lease.tell("expired"), this.lease, "exports"));
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
	}

	@Test
	void cancelIsRejectedAtStartupForACompletionStageAndForSingleFlight() throws Exception {
		ExclusiveRequestAttributeSource source = new ExclusiveRequestAttributeSource();
		assertThatExceptionOfType(InvalidExclusiveRequestException.class)
			.isThrownBy(() -> source.getAttribute(Invalid.class.getMethod("async"), Invalid.class))
			.withMessageContaining("async")
			.withMessageContaining("onLeaseLost = CANCEL");
		assertThatExceptionOfType(InvalidExclusiveRequestException.class)
			.isThrownBy(() -> source.getAttribute(Invalid.class.getMethod("shared"), Invalid.class))
			.withMessageContaining("shared")
			.withMessageContaining("onLeaseLost = CANCEL cannot be combined with onConflict = SHARE_RESULT");
	}

	@Test
	void aConfiguredCancelLeavesCompletionStagesReporting() throws Exception {
		ExclusiveRequestAttributeSource source = new ExclusiveRequestAttributeSource();
		ExclusiveRequestAttribute plain = source.getAttribute(Valid.class.getMethod("plain"), Valid.class);
		ExclusiveRequestAttribute async = source.getAttribute(Valid.class.getMethod("async"), Valid.class);
		ExclusiveRequestAttribute reported = source.getAttribute(Valid.class.getMethod("reported"), Valid.class);
		assertThat(plain.cancelsOnLeaseLost(OnLeaseLost.CANCEL)).isTrue();
		assertThat(plain.cancelsOnLeaseLost(OnLeaseLost.REPORT)).isFalse();
		assertThat(async.cancelsOnLeaseLost(OnLeaseLost.CANCEL)).isFalse();
		assertThat(reported.cancelsOnLeaseLost(OnLeaseLost.CANCEL)).isFalse();
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** A lease whose loss the test tells, as the renewer would. */
	static final class TellableLease implements LossNotifyingLease {

		private @Nullable Consumer<String> action;

		@Nullable Object tell(String reason) {
			Consumer<String> told = this.action;
			if (told != null) {
				told.accept(reason);
			}
			return null;
		}

		@Override
		public void whenLost(Consumer<String> action) {
			this.action = action;
		}

		@Override
		public String key() {
			return "exports:42";
		}

		@Override
		public long fencingToken() {
			return 1;
		}

		@Override
		public boolean isHeld() {
			return true;
		}

		@Override
		public boolean extend(Duration ttl, Duration holdAtLeast) {
			return true;
		}

		@Override
		public boolean putResult(byte[] result, Duration ttl) {
			return false;
		}

		@Override
		public boolean release() {
			return true;
		}

		@Override
		public void close() {
		}

	}

	static class Valid {

		@ExclusiveRequest(key = "'k'")
		public String plain() {
			return "done";
		}

		@ExclusiveRequest(key = "'k'")
		public CompletableFuture<String> async() {
			return CompletableFuture.completedFuture("done");
		}

		@ExclusiveRequest(key = "'k'", onLeaseLost = OnLeaseLost.REPORT)
		public String reported() {
			return "done";
		}

	}

	static class Invalid {

		@ExclusiveRequest(key = "'k'", onLeaseLost = OnLeaseLost.CANCEL)
		public CompletableFuture<String> async() {
			return CompletableFuture.completedFuture("done");
		}

		@ExclusiveRequest(key = "'k'", onLeaseLost = OnLeaseLost.CANCEL, onConflict = OnConflict.SHARE_RESULT)
		public String shared() {
			return "done";
		}

	}

}
