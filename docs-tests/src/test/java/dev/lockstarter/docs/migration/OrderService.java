package dev.lockstarter.docs.migration;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.stereotype.Service;

/**
 * The Spring Integration call site of {@link OrderFulfilment#ship} as an annotation.
 */
@Service
public class OrderService {

	private final Orders orders;

	OrderService(Orders orders) {
		this.orders = orders;
	}

	// tag::annotation[]
	@ExclusiveRequest(name = "order", key = "#orderId", ttl = "10s", waitTime = "2s")
	public Shipment ship(String orderId) {
		return this.orders.ship(orderId);
	}
	// end::annotation[]

}
