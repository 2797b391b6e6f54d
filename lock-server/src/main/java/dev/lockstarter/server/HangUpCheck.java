package dev.lockstarter.server;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.springframework.beans.factory.DisposableBean;

/**
 * Runs the checks of the connections whose acquisitions wait, each at a fixed interval,
 * on one thread of its own: Tomcat does not read from the connection of a request that
 * waits asynchronously, so it does not notice on its own that the client has hung up.
 *
 * @since 0.1.0
 */
final class HangUpCheck implements DisposableBean {

	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "lock-server-hang-up-check");
		thread.setDaemon(true);
		return thread;
	});

	private final long intervalMillis;

	HangUpCheck(Duration interval) {
		this.intervalMillis = interval.toMillis();
	}

	/**
	 * Run a check at the interval until it is cancelled.
	 * @param check the check, which must not block
	 * @return the scheduled check, to cancel when its request ends
	 */
	ScheduledFuture<?> every(Runnable check) {
		return this.scheduler.scheduleWithFixedDelay(check, this.intervalMillis, this.intervalMillis,
				TimeUnit.MILLISECONDS);
	}

	@Override
	public void destroy() {
		this.scheduler.shutdownNow();
	}

}
