package dev.lockstarter.kotlin

import dev.lockstarter.core.FinishedAttempt
import dev.lockstarter.core.LockConflictException
import dev.lockstarter.core.LockListener
import dev.lockstarter.core.LockOptions
import dev.lockstarter.core.LockTemplate
import dev.lockstarter.core.ReactiveLockTemplate
import dev.lockstarter.core.withLock
import dev.lockstarter.store.memory.InMemoryLockStore
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.Job
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger

/**
 * The coroutine extensions of [dev.lockstarter.core.ReactiveLockOperations], on the
 * in-memory store.
 */
class ReactiveLockOperationsExtensionsTests {

	private val template = LockTemplate(InMemoryLockStore())

	private val locks = ReactiveLockTemplate(template)

	@AfterEach
	fun shutDown() = template.destroy()

	@Test
	fun `withLock runs the block holding the lock and releases it`(): Unit = runBlocking {
		val result = locks.withLock("order:1", Duration.ofSeconds(10)) { lease ->
			"${lease.key()} held: ${isHeld("order:1")}"
		}
		assertThat(result).isEqualTo("order:1 held: true")
		assertThat(isHeld("order:1")).isFalse()
	}

	@Test
	fun `withLock throws a conflict without running the block when the lock is held`(): Unit = runBlocking {
		val held = template.acquire("order:2", Duration.ofSeconds(10))
		val runs = AtomicInteger()
		assertThatExceptionOfType(LockConflictException::class.java).isThrownBy {
			runBlocking { locks.withLock("order:2", Duration.ofSeconds(10)) { runs.incrementAndGet() } }
		}
		assertThat(runs).hasValue(0)
		held.close()
	}

	@Test
	fun `withLock releases when the block throws, and the exception propagates unchanged`(): Unit = runBlocking {
		assertThatExceptionOfType(IllegalArgumentException::class.java).isThrownBy {
			runBlocking { locks.withLock("order:3", Duration.ofSeconds(10)) { throw IllegalArgumentException("bad") } }
		}
		assertThat(isHeld("order:3")).isFalse()
	}

	@Test
	fun `withLock releases when the calling coroutine is cancelled`(): Unit = runBlocking {
		val started = CompletableDeferred<Unit>()
		val job = launch {
			locks.withLock("order:4", Duration.ofSeconds(30)) {
				started.complete(Unit)
				delay(30_000)
			}
		}
		started.await()
		assertThat(isHeld("order:4")).isTrue()
		job.cancel()
		job.join()
		assertThat(isHeld("order:4")).isFalse()
	}

	@Test
	fun `withLock releases a lock granted just as the calling coroutine is cancelled`(): Unit = runBlocking {
		val runs = AtomicInteger()
		lateinit var job: Job
		// Told of the grant before the caller gets it: cancelled there, the caller never gets it
		template.addListener(object : LockListener {
			override fun acquisitionFinished(acquisition: FinishedAttempt) {
				if (acquisition.key() == "order:5" && acquisition.outcome() == FinishedAttempt.Outcome.ACQUIRED) {
					job.cancel()
				}
			}
		})
		job = launch(start = CoroutineStart.LAZY) {
			locks.withLock("order:5", Duration.ofSeconds(30)) { runs.incrementAndGet() }
		}
		job.start()
		job.join()
		assertThat(job.isCancelled).isTrue()
		assertThat(runs).hasValue(0)
		await().atMost(Duration.ofSeconds(10)).until { !isHeld("order:5") }
	}

	@Test
	fun `withLock on several keys holds all of them`(): Unit = runBlocking {
		val held = locks.withLock(listOf("account:a", "account:b"), Duration.ofSeconds(10)) {
			listOf(isHeld("account:a"), isHeld("account:b"))
		}
		assertThat(held).containsExactly(true, true)
		assertThat(isHeld("account:a") || isHeld("account:b")).isFalse()
	}

	@Test
	fun `waiting withLock calls of one key never overlap`(): Unit = runBlocking {
		val inside = AtomicInteger()
		val mostInside = AtomicInteger()
		val runs = AtomicInteger()
		val options = LockOptions.ttl(Duration.ofSeconds(10)).withWaitTime(Duration.ofSeconds(20))
		val calls = (1..40).map {
			async(Dispatchers.Default) {
				locks.withLock("counter", options) {
					mostInside.accumulateAndGet(inside.incrementAndGet(), ::maxOf)
					delay(2)
					inside.decrementAndGet()
					runs.incrementAndGet()
				}
			}
		}
		withTimeout(30_000) { calls.awaitAll() }
		assertThat(mostInside).hasValue(1)
		assertThat(runs).hasValue(40)
	}

	private fun isHeld(key: String): Boolean {
		val attempt = template.tryAcquire(key, Duration.ofSeconds(10))
		if (attempt.isAcquired) {
			attempt.lease().close()
			return false
		}
		return true
	}

}
