package dev.lockstarter.docs.reactive.coroutines

import dev.lockstarter.core.ReactiveLockOperations
import dev.lockstarter.core.withLock
import dev.lockstarter.key.LockKeys
import org.springframework.stereotype.Service
import java.time.Duration

/**
 * Charges an order while holding its lock, suspending instead of blocking.
 */
@Service
class PaymentCharges(private val reactiveLocks: ReactiveLockOperations, private val payments: Payments) {

	suspend fun charge(orderId: String): Receipt {
		// tag::with-lock[]
		val receipt = reactiveLocks.withLock(LockKeys.of("payment", orderId), Duration.ofSeconds(10)) { lease ->
			// the token is 0 on a store that issues none: the payment service refuses 0
			payments.charge(orderId, lease.fencingToken())
		}
		// end::with-lock[]
		return receipt
	}
}
