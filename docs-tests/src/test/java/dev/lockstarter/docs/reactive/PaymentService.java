package dev.lockstarter.docs.reactive;

import java.time.Duration;

import reactor.core.publisher.Mono;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.ReactiveLockOperations;
import dev.lockstarter.key.LockKeys;
import org.springframework.stereotype.Service;

/**
 * Charges an order while holding its lock, without blocking a thread.
 */
@Service
public class PaymentService {

	private final ReactiveLockOperations reactiveLocks;

	private final Payments payments;

	public PaymentService(ReactiveLockOperations reactiveLocks, Payments payments) {
		this.reactiveLocks = reactiveLocks;
		this.payments = payments;
	}

	public Mono<Receipt> charge(String orderId) {
		// tag::execute[]
		Mono<Receipt> receipt = this.reactiveLocks
			.execute(LockKeys.of("payment", orderId),
					LockOptions.ttl(Duration.ofSeconds(10)).withWaitTime(Duration.ofSeconds(2)),
					(lease) -> this.payments.charge(orderId)) // any Publisher
			.single();
		// end::execute[]
		return receipt;
	}

}
