package dev.lockstarter.docs.migration;

import java.time.Duration;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.key.LockKeys;
import org.springframework.stereotype.Service;

/**
 * Spring Integration {@code LockRegistry} call sites rewritten with
 * {@link LockOperations}.
 */
@Service
public class OrderFulfilment {

	private final LockOperations locks;

	private final Orders orders;

	OrderFulfilment(LockOperations locks, Orders orders) {
		this.locks = locks;
		this.orders = orders;
	}

	// tag::execute[]
	public Shipment ship(String orderId) {
		LockOptions options = LockOptions.ttl(Duration.ofSeconds(10)).withWaitTime(Duration.ofSeconds(2));
		return this.locks.execute(LockKeys.of("order", orderId), options, (lease) -> this.orders.ship(orderId));
	}
	// end::execute[]

	// tag::try-once[]
	public boolean cancelIfFree(String orderId) {
		LockAttempt attempt = this.locks.tryAcquire(LockKeys.of("order", orderId),
				LockOptions.ttl(Duration.ofSeconds(10)));
		if (!attempt.isAcquired()) {
			return false;
		}
		try (var lease = attempt.lease()) {
			this.orders.cancel(orderId);
			return true;
		}
	}
	// end::try-once[]

}
