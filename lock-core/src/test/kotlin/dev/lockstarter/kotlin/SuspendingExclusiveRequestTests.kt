package dev.lockstarter.kotlin

import dev.lockstarter.annotation.ExclusiveJob
import dev.lockstarter.annotation.ExclusiveRequest
import dev.lockstarter.annotation.OnConflict
import dev.lockstarter.core.LockConflictException
import dev.lockstarter.core.LockTemplate
import dev.lockstarter.interceptor.ExclusiveJobAttributeSource
import dev.lockstarter.interceptor.ExclusiveRequestAdvisor
import dev.lockstarter.interceptor.InvalidExclusiveJobException
import dev.lockstarter.interceptor.InvalidExclusiveRequestException
import dev.lockstarter.result.JacksonResultCodec
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import tools.jackson.databind.json.JsonMapper
import org.springframework.aop.support.AopUtils
import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger

/**
 * `@ExclusiveRequest` on Kotlin `suspend` functions and on functions that return a `Flow`,
 * through a Spring AOP proxy, with a [LockTemplate] on the in-memory store.
 */
class SuspendingExclusiveRequestTests {

	private val intercepted = InterceptedLocks()

	private val locks = intercepted.locks

	private val attributeSource = intercepted.attributeSource

	private val interceptor = intercepted.interceptor

	private val target = Registrations(locks)

	private val registrations = intercepted.proxy(target)

	init {
		interceptor.setResultCodec { JacksonResultCodec(JsonMapper.builder().build()) }
	}

	@AfterEach
	fun shutDown() = locks.destroy()

	@Test
	fun `suspend function runs holding the lock on its declared parameter and releases it`(): Unit = runBlocking {
		assertThat(registrations.register("alice", 0)).isEqualTo("alice registered, held: true")
		assertThat(isHeld("registration:alice")).isFalse()
		assertThat(locks.heldLocks).isEmpty()
	}

	@Test
	fun `concurrent call for the same key gets a conflict and does not run`(): Unit = runBlocking {
		val first = async { registrations.register("bob", 500) }
		awaitHeld("registration:bob")
		// The holder counts its run once inside, which may be just after the lock is seen held
		withTimeout(10_000) {
			while (target.runs.get() == 0) {
				delay(5)
			}
		}
		val runs = target.runs.get()
		assertThatExceptionOfType(LockConflictException::class.java)
			.isThrownBy { runBlocking { registrations.register("bob", 0) } }
			.satisfies({ assertThat(it.lockName).isEqualTo("registration") })
		assertThat(target.runs).hasValue(runs)
		assertThat(first.await()).startsWith("bob registered")
		assertThat(isHeld("registration:bob")).isFalse()
	}

	@Test
	fun `exception of a suspend function propagates unchanged and releases the lock`(): Unit = runBlocking {
		assertThatExceptionOfType(IllegalStateException::class.java)
			.isThrownBy { runBlocking { registrations.failing("carol") } }
			.withMessage("points service down")
		assertThat(isHeld("registration:carol")).isFalse()
	}

	@Test
	fun `cancelling the calling coroutine releases the lock`(): Unit = runBlocking {
		val started = CompletableDeferred<Unit>()
		val call = launch { registrations.register("dave", 30_000, started) }
		started.await()
		assertThat(isHeld("registration:dave")).isTrue()
		call.cancel()
		call.join()
		awaitFree("registration:dave")
	}

	@Test
	fun `static copy that Kotlin compiles for an open suspend function is no declaration of its own`() {
		val suspendImpl = Registrations::class.java.declaredMethods.first { it.name == "register\$suspendImpl" }
		assertThat(suspendImpl.isSynthetic).isTrue()
		assertThat(suspendImpl.getAnnotation(ExclusiveRequest::class.java)).isNotNull()
		assertThat(attributeSource.getAttribute(suspendImpl, Registrations::class.java)).isNull()
		val declared = Registrations::class.java.declaredMethods
			.filter { attributeSource.getAttribute(it, Registrations::class.java) != null }
			.map { it.name }
		assertThat(declared).containsExactlyInAnyOrder("register", "failing", "countArguments", "stream", "waiting",
				"report", "refresh")
		assertThat(AopUtils.canApply(ExclusiveRequestAdvisor(attributeSource, interceptor), Registrations::class.java))
			.isTrue()
	}

	@Test
	fun `key expressions see the declared parameters, not the continuation`() {
		assertThatExceptionOfType(InvalidExclusiveRequestException::class.java)
			.isThrownBy { attributeSource.getAttribute(Misdeclared::class.java.methods.first { it.name == "p1" },
					Misdeclared::class.java) }
			.withMessageContaining("'#p1', which is not a parameter")
		runBlocking {
			assertThat(registrations.countArguments("erin")).isEqualTo("key registration:1 held: true")
		}
	}

	@Test
	fun `suspend function is refused as an exclusive job, naming the reason`() {
		val method = Misdeclared::class.java.methods.first { it.name == "nightly" }
		assertThatExceptionOfType(InvalidExclusiveJobException::class.java)
			.isThrownBy { ExclusiveJobAttributeSource().getAttribute(method, Misdeclared::class.java) }
			.withMessageContaining("a suspend function cannot be an exclusive job yet")
	}

	@Test
	fun `flow is produced holding the lock`(): Unit = runBlocking {
		val flow = registrations.stream("frank", 3)
		assertThat(isHeld("registration:frank")).isFalse()
		assertThat(flow.toList()).containsExactly("0:true", "1:true", "2:true")
		assertThat(isHeld("registration:frank")).isFalse()
	}

	@Test
	fun `waiting suspend calls of one key never overlap`(): Unit = runBlocking {
		val inside = AtomicInteger()
		val mostInside = AtomicInteger()
		val calls = (1..40).map {
			async(kotlinx.coroutines.Dispatchers.Default) {
				registrations.waiting("gina") {
					mostInside.accumulateAndGet(inside.incrementAndGet(), ::maxOf)
					delay(2)
					inside.decrementAndGet()
				}
			}
		}
		withTimeout(30_000) { calls.awaitAll() }
		assertThat(mostInside).hasValue(1)
		assertThat(target.runs).hasValue(40)
	}

	@Test
	fun `single-flight suspend function runs once and every waiting caller gets its value`(): Unit = runBlocking {
		val reports = (1..6).map {
			async(kotlinx.coroutines.Dispatchers.Default) { registrations.report("r1") }
		}
		assertThat(withTimeout(30_000) { reports.awaitAll() }).containsOnly(listOf("r1", "built 1 time(s)"))
		assertThat(target.reportRuns).hasValue(1)
	}

	@Test
	fun `single-flight suspend function without a value shares its completion`(): Unit = runBlocking {
		val refreshes = (1..4).map {
			async(kotlinx.coroutines.Dispatchers.Default) { registrations.refresh("r2") }
		}
		withTimeout(30_000) { refreshes.awaitAll() }
		assertThat(target.reportRuns).hasValue(1)
	}

	private fun isHeld(key: String): Boolean {
		val attempt = locks.tryAcquire(key, Duration.ofSeconds(30))
		if (attempt.isAcquired) {
			attempt.lease().close()
			return false
		}
		return true
	}

	private suspend fun awaitHeld(key: String) = withTimeout(10_000) {
		while (!isHeld(key)) {
			delay(10)
		}
	}

	private suspend fun awaitFree(key: String) = withTimeout(10_000) {
		while (isHeld(key)) {
			delay(10)
		}
	}

	open class Registrations(private val locks: LockTemplate) {

		val runs = AtomicInteger()

		@ExclusiveRequest(name = "registration", key = ["#userName"])
		open suspend fun register(userName: String, latencyMillis: Long,
				started: CompletableDeferred<Unit>? = null): String {
			runs.incrementAndGet()
			started?.complete(Unit)
			delay(latencyMillis)
			return "$userName registered, held: ${held("registration:$userName")}"
		}

		@ExclusiveRequest(name = "registration", key = ["#userName"])
		open suspend fun failing(userName: String): String {
			delay(1)
			throw IllegalStateException("points service down")
		}

		@ExclusiveRequest(name = "registration", key = ["#args.length"])
		open suspend fun countArguments(userName: String): String {
			delay(1)
			return "key registration:1 held: ${held("registration:1")}"
		}

		@ExclusiveRequest(name = "registration", key = ["#userName"])
		open fun stream(userName: String, count: Int): Flow<String> = flow {
			for (i in 0 until count) {
				emit("$i:${held("registration:$userName")}")
			}
		}

		@ExclusiveRequest(name = "registration", key = ["#userName"], waitTime = "20s")
		open suspend fun waiting(userName: String, work: suspend () -> Unit) {
			runs.incrementAndGet()
			work()
		}

		val reportRuns = AtomicInteger()

		@ExclusiveRequest(name = "report", key = ["#id"], onConflict = OnConflict.SHARE_RESULT)
		open suspend fun report(id: String): List<String> {
			val runs = reportRuns.incrementAndGet()
			delay(500)
			return listOf(id, "built $runs time(s)")
		}

		@ExclusiveRequest(name = "report", key = ["#id"], onConflict = OnConflict.SHARE_RESULT)
		open suspend fun refresh(id: String) {
			reportRuns.incrementAndGet()
			delay(500)
		}

		private fun held(key: String): Boolean {
			val attempt = locks.tryAcquire(key, Duration.ofSeconds(1))
			if (attempt.isAcquired) {
				attempt.lease().close()
				return false
			}
			return true
		}

	}

	open class Misdeclared {

		@ExclusiveRequest(name = "registration", key = ["#p1"])
		open suspend fun p1(userName: String): String = userName

		@ExclusiveJob(ttl = "1m")
		open suspend fun nightly() = delay(1)

	}

}
