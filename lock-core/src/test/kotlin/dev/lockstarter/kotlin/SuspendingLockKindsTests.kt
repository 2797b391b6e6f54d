package dev.lockstarter.kotlin

import dev.lockstarter.annotation.ExclusiveRequest
import dev.lockstarter.annotation.LockMode
import dev.lockstarter.core.LockConflictException
import dev.lockstarter.core.LockKind
import dev.lockstarter.core.LockOptions
import dev.lockstarter.core.LockTemplate
import dev.lockstarter.core.ReactiveLockTemplate
import dev.lockstarter.core.withLock
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger

/**
 * Permits and read/write locks on Kotlin `suspend` functions and through `withLock`, with a
 * [LockTemplate] on the in-memory store.
 */
class SuspendingLockKindsTests {

	private val intercepted = InterceptedLocks()

	private val locks = intercepted.locks

	private val target = Exports()

	private val exports = intercepted.proxy(target)

	@AfterEach
	fun shutDown() = locks.destroy()

	@Test
	fun `two permits let two suspend calls in and turn the third away`(): Unit = runBlocking {
		val release = CompletableDeferred<Unit>()
		val inside = List(2) { CompletableDeferred<Unit>() }
		val holders = inside.map { entered -> async { exports.export("acme", entered, release) } }
		withTimeout(10_000) { inside.awaitAll() }
		val third = runCatching { exports.export("acme", CompletableDeferred(), release) }
		assertThat(third.exceptionOrNull()).isInstanceOf(LockConflictException::class.java)
		release.complete(Unit)
		assertThat(holders.awaitAll()).containsExactly("exported", "exported")
		assertThat(target.mostInside.get()).isEqualTo(2)
		assertThat(locks.heldLocks).isEmpty()
	}

	@Test
	fun `withLock takes a read place beside another reader`(): Unit = runBlocking {
		val reactive = ReactiveLockTemplate(locks)
		val read = LockOptions.ttl(Duration.ofSeconds(30)).withKind(LockKind.READ)
		val both = reactive.withLock("doc", read) { first ->
			reactive.withLock("doc", read) { second -> first.isHeld && second.isHeld }
		}
		assertThat(both).isTrue()
		assertThat(locks.tryAcquire("doc", LockOptions.ttl(Duration.ofSeconds(1)).withKind(LockKind.WRITE))
			.isAcquired).isTrue()
	}

	open class Exports {

		val inside = AtomicInteger()

		val mostInside = AtomicInteger()

		@ExclusiveRequest(name = "export", key = ["#tenant"], permits = 2, mode = LockMode.EXCLUSIVE)
		open suspend fun export(tenant: String, entered: CompletableDeferred<Unit>,
				release: CompletableDeferred<Unit>): String {
			mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max)
			entered.complete(Unit)
			release.await()
			inside.decrementAndGet()
			return "exported"
		}

	}

}
