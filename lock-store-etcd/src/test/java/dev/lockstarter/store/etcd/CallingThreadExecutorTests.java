package dev.lockstarter.store.etcd;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link CallingThreadExecutor}: a task runs in the thread that submits it, and the
 * executor keeps the contract of an {@link ExecutorService} once shut down.
 */
class CallingThreadExecutorTests {

	@Test
	void runsEachTaskInTheSubmittingThreadBeforeSubmitReturns() throws Exception {
		CallingThreadExecutor executor = new CallingThreadExecutor();
		Future<String> ran = executor.submit(() -> Thread.currentThread().getName());
		assertThat(ran.isDone()).isTrue();
		assertThat(ran.get()).isEqualTo(Thread.currentThread().getName());
	}

	@Test
	void rejectsTasksOnceShutDownAndTerminatesOnlyWhenTheRunningTasksHaveEnded() throws Exception {
		CallingThreadExecutor executor = new CallingThreadExecutor();
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		ExecutorService caller = Executors.newSingleThreadExecutor();
		try {
			caller.execute(() -> executor.execute(() -> {
				started.countDown();
				await(finish);
			}));
			assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
			assertThat(executor.shutdownNow()).isEmpty();
			assertThat(executor.isShutdown()).isTrue();
			assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> executor.execute(() -> {
			}));
			assertThat(executor.isTerminated()).isFalse();
			assertThat(executor.awaitTermination(50, TimeUnit.MILLISECONDS)).isFalse();
			finish.countDown();
			assertThat(executor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
			assertThat(executor.isTerminated()).isTrue();
		}
		finally {
			finish.countDown();
			caller.shutdownNow();
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
