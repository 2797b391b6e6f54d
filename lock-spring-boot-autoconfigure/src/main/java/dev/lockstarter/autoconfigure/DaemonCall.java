package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.lockstarter.core.Internal;

/**
 * A blocking call, such as a Redis command whose client may wait a minute, run on a
 * daemon thread of its own while the caller waits for it at most a bound. The call is not
 * interrupted when the caller gives up: it ends on its own, within the client's timeouts.
 * For startup checks and health checks, never for lock operations.
 *
 * @since 0.1.0
 */
@Internal
public final class DaemonCall {

	private DaemonCall() {
	}

	/**
	 * Run a call and wait for its result at most {@code timeout}.
	 * @param <T> the result type
	 * @param threadName the name of the thread that runs it
	 * @param call the call
	 * @param timeout the longest wait
	 * @return the result
	 * @throws TimeoutException if the call did not end in time
	 * @throws ExecutionException if the call failed
	 * @throws InterruptedException if the caller was interrupted while it waited
	 */
	public static <T> T call(String threadName, Callable<T> call, Duration timeout)
			throws TimeoutException, ExecutionException, InterruptedException {
		CompletableFuture<T> result = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				result.complete(call.call());
			}
			catch (Exception ex) {
				result.completeExceptionally(ex);
			}
		}, threadName);
		thread.setDaemon(true);
		thread.start();
		return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
	}

}
