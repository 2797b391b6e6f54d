package dev.lockstarter.kotlin

import dev.lockstarter.annotation.ExclusiveRequest
import dev.lockstarter.annotation.OnLeaseLost
import dev.lockstarter.core.LeaseLostException
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test

/**
 * `onLeaseLost = CANCEL` on a Kotlin `suspend` function: when renewal stops at the
 * maximum hold time, the coroutine is cancelled and the caller gets a
 * [LeaseLostException]; with `REPORT` the same function runs to its end.
 */
class SuspendingLeaseLostTests {

	private val intercepted = InterceptedLocks()

	private val locks = intercepted.locks

	private val target = Exports()

	private val exports = intercepted.proxy(target)

	@AfterEach
	fun shutDown() = locks.destroy()

	@Test
	fun `cancel cancels the coroutine at the maximum hold time and the caller gets LeaseLostException`(): Unit =
		runBlocking {
			assertThatExceptionOfType(LeaseLostException::class.java)
				.isThrownBy { runBlocking { withTimeout(30_000) { exports.cancelled(2_000) } } }
				.satisfies({
					assertThat(it.lockName).isEqualTo("export")
					assertThat(it.message).contains("maximum hold time")
				})
			assertThat(withTimeout(30_000) { target.cancelled.await() }).isInstanceOf(CancellationException::class.java)
			assertThat(locks.heldLocks).isEmpty()
		}

	@Test
	fun `report lets the coroutine run past the maximum hold time`(): Unit = runBlocking {
		assertThat(withTimeout(30_000) { exports.reported(2_000) }).isEqualTo("exported")
	}

	open class Exports {

		val cancelled = CompletableDeferred<Throwable>()

		@ExclusiveRequest(name = "export", key = ["'all'"], ttl = "600ms", maxHold = "600ms",
				onLeaseLost = OnLeaseLost.CANCEL)
		open suspend fun cancelled(millis: Long): String {
			try {
				delay(millis)
				return "exported"
			}
			catch (ex: CancellationException) {
				cancelled.complete(ex)
				throw ex
			}
		}

		@ExclusiveRequest(name = "export", key = ["'all'"], ttl = "600ms", maxHold = "600ms",
				onLeaseLost = OnLeaseLost.REPORT)
		open suspend fun reported(millis: Long): String {
			delay(millis)
			return "exported"
		}

	}

}
