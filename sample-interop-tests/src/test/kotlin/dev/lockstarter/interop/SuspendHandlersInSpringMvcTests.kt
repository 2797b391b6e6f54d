package dev.lockstarter.interop

import dev.lockstarter.core.LockOptions
import dev.lockstarter.core.LockTemplate
import dev.lockstarter.idempotency.IdempotentRequest
import dev.lockstarter.idempotency.IdempotentRequestInterceptor
import dev.lockstarter.store.memory.InMemoryLockStore
import org.assertj.core.api.Assertions.assertThatIllegalStateException
import org.junit.jupiter.api.Test
import org.springframework.web.method.HandlerMethod
import java.time.Duration

/**
 * Spring MVC runs a `suspend` handler asynchronously, after the request thread has left
 * the handler, so `@IdempotentRequest` refuses it there, as it refuses a `Mono`; WebFlux
 * accepts it (`SuspendIdempotentRequestTests` in the Kotlin sample).
 */
class SuspendHandlersInSpringMvcTests {

	@Test
	fun `idempotent suspend handler is refused in Spring MVC, naming the method`() {
		val interceptor = IdempotentRequestInterceptor({ LockTemplate(InMemoryLockStore()) },
				{ LockOptions.ttl(Duration.ofSeconds(10)) }, Duration.ofHours(1))
		val handler = Handlers()
		val method = Handlers::class.java.methods.first { it.name == "pay" }
		assertThatIllegalStateException().isThrownBy { interceptor.getAttribute(HandlerMethod(handler, method)) }
			.withMessageContaining("pay")
			.withMessageContaining("is a suspend function: asynchronous handlers are not supported in Spring MVC")
	}

	class Handlers {

		@IdempotentRequest
		suspend fun pay(amount: Int): String = "paid $amount"

	}

}
