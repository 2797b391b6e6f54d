package dev.lockstarter.docs.adapters;

import java.time.Duration;

import dev.lockstarter.docs.migration.Orders;
import dev.lockstarter.docs.migration.Shipment;
import dev.lockstarter.key.LockKeys;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.stereotype.Service;

/**
 * Code written for Spring Integration's {@code LockRegistry}, unchanged, on the
 * auto-configured registry.
 */
@Service
public class OrderShipping {

	private final LockRegistry<DistributedLock> lockRegistry;

	private final Orders orders;

	OrderShipping(LockRegistry<DistributedLock> lockRegistry, Orders orders) {
		this.lockRegistry = lockRegistry;
		this.orders = orders;
	}

	// tag::registry[]
	public Shipment ship(String orderId) throws InterruptedException {
		DistributedLock lock = this.lockRegistry.obtain(LockKeys.of("order", orderId));
		if (!lock.tryLock(Duration.ofSeconds(2), Duration.ofSeconds(30))) {
			throw new IllegalStateException("order " + orderId + " is busy");
		}
		try {
			return this.orders.ship(orderId);
		}
		finally {
			lock.unlock();
		}
	}
	// end::registry[]

}
