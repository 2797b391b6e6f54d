package dev.lockstarter.kotlin

import dev.lockstarter.annotation.ExclusiveRequest
import dev.lockstarter.interceptor.ReactiveExclusiveRequestContext
import kotlinx.coroutines.delay
import kotlinx.coroutines.reactor.awaitSingleOrNull
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test

/**
 * A Kotlin `suspend` function reads its lease's fencing token from
 * [ReactiveExclusiveRequestContext], before and after it suspends, with a
 * [dev.lockstarter.core.LockTemplate] on the in-memory store.
 */
class SuspendingFencingTokenTests {

	private val intercepted = InterceptedLocks()

	private val ledger = intercepted.proxy(Ledger())

	@AfterEach
	fun shutDown() = intercepted.destroy()

	@Test
	fun `a suspend function reads the token of its own lease, also after it resumed`(): Unit = runBlocking {
		val first = ledger.credit("A")
		val second = ledger.credit("A")
		assertThat(first.first).isPositive()
		assertThat(first.second).isEqualTo(first.first)
		assertThat(second.first).isGreaterThan(first.first)
	}

	@Test
	fun `outside an annotated function there is no token`(): Unit = runBlocking {
		assertThat(ReactiveExclusiveRequestContext.currentFencingToken().awaitSingleOrNull()).isNull()
	}

	open class Ledger {

		/** The token read before and after a suspension. */
		@ExclusiveRequest(name = "ledger", key = ["#account"])
		open suspend fun credit(account: String): Pair<Long?, Long?> {
			val before = ReactiveExclusiveRequestContext.currentFencingToken().awaitSingleOrNull()
			delay(10)
			val after = ReactiveExclusiveRequestContext.currentFencingToken().awaitSingleOrNull()
			return before to after
		}

	}

}
