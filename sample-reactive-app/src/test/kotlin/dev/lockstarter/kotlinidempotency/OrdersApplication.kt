package dev.lockstarter.kotlinidempotency

import dev.lockstarter.idempotency.IdempotentRequest
import kotlinx.coroutines.delay
import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.http.HttpStatus
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestHeader
import org.springframework.web.bind.annotation.RestController
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger

/**
 * A WebFlux application whose one handler is an idempotent suspend function, for
 * [SuspendIdempotentRequestTests] (outside the test class, which Boot's test scan skips).
 */
@SpringBootApplication
class OrdersApplication

/**
 * Takes orders, counting the runs of each idempotency key.
 */
@RestController
class Orders {

	private val runs = ConcurrentHashMap<String, AtomicInteger>()

	fun runs(key: String): Int = runs[key]?.get() ?: 0

	@PostMapping("/orders")
	@IdempotentRequest
	suspend fun order(@RequestBody order: Map<String, String>,
			@RequestHeader("Idempotency-Key") key: String):
			ResponseEntity<Map<String, Any>> {
		val run = runs.computeIfAbsent(key.trim('"')) { AtomicInteger() }.incrementAndGet()
		delay(if (order["item"] == "slow") 500 else 10)
		return ResponseEntity.status(HttpStatus.CREATED).body(mapOf("item" to order.getValue("item"), "run" to run))
	}

}
