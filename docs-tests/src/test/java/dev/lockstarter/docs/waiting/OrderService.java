package dev.lockstarter.docs.waiting;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.stereotype.Service;

/**
 * Waits for a held lock, retries on a fixed schedule, or keeps the lock for a minimum
 * time.
 */
@Service
public class OrderService {

	private final Orders orders;

	public OrderService(Orders orders) {
		this.orders = orders;
	}

	// tag::wait[]
	// waits up to 5 seconds for the holder, and acquires as soon as it releases
	@ExclusiveRequest(key = "#orderId", waitTime = "5s")
	public void ship(String orderId) {
		this.orders.ship(orderId);
	}

	// tries 3 more times, 200 ms apart
	@ExclusiveRequest(key = "#orderId", retries = 3, retryInterval = "200ms")
	public void cancel(String orderId) {
		this.orders.cancel(orderId);
	}

	// keeps the lock 2 seconds after acquiring it: a double click is turned away
	@ExclusiveRequest(key = "#orderId", holdAtLeast = "2s")
	public void place(String orderId) {
		this.orders.place(orderId);
	}
	// end::wait[]

}
