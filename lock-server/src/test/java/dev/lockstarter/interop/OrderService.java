package dev.lockstarter.interop;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.stereotype.Service;

/**
 * Places an order under the lock {@code orders:<id>}, holding it until told to finish.
 */
@Service
public class OrderService {

	private volatile CountDownLatch running = new CountDownLatch(1);

	private volatile CountDownLatch finish = new CountDownLatch(1);

	/** Make the next call wait for {@link #finish()} while it holds the lock. */
	public void reset() {
		this.running = new CountDownLatch(1);
		this.finish = new CountDownLatch(1);
	}

	/**
	 * Wait until a call runs, holding the lock.
	 * @return whether one did within 10 seconds
	 * @throws InterruptedException if interrupted
	 */
	public boolean awaitRunning() throws InterruptedException {
		return this.running.await(10, TimeUnit.SECONDS);
	}

	/** Let the running call finish. */
	public void finish() {
		this.finish.countDown();
	}

	@ExclusiveRequest(name = "orders", key = "#orderId")
	public String place(String orderId) throws InterruptedException {
		this.running.countDown();
		if (!this.finish.await(30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("Not told to finish");
		}
		return "placed " + orderId;
	}

}
