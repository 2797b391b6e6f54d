package dev.lockstarter.kotlin

import dev.lockstarter.annotation.ExclusiveRequest
import dev.lockstarter.core.Lease
import dev.lockstarter.core.LockConflictException
import dev.lockstarter.core.LockTemplate
import dev.lockstarter.interceptor.InvalidExclusiveRequestException
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger

/**
 * The `fallback` of `@ExclusiveRequest` on Kotlin `suspend` functions and on functions that
 * return a `Flow`, through a Spring AOP proxy, with a [LockTemplate] on the in-memory store.
 * The key is held by the test, as another owner would hold it.
 */
class SuspendingFallbackTests {

	private val intercepted = InterceptedLocks()

	private val locks = intercepted.locks

	private val attributeSource = intercepted.attributeSource

	private val target = Exports()

	private val exports = intercepted.proxy(target)

	@AfterEach
	fun shutDown() = locks.destroy()

	@Test
	fun `held key is answered by the suspend fallback with the arguments and the conflict`(): Unit = runBlocking {
		hold("exports:acme").use {
			assertThat(exports.export("acme", 3)).isEqualTo("queued acme (3 rows)")
		}
		assertThat(target.runs).hasValue(0)
		assertThat(target.conflicts).singleElement()
			.satisfies({ assertThat(it.lockName).isEqualTo("exports") })
		assertThat(exports.export("acme", 3)).isEqualTo("exported acme (3 rows)")
		assertThat(target.runs).hasValue(1)
	}

	@Test
	fun `private suspend fallback without the conflict parameter answers`(): Unit = runBlocking {
		hold("reports:acme").use {
			assertThat(exports.report("acme")).isEqualTo("report of acme is on its way")
		}
		assertThat(target.runs).hasValue(0)
	}

	@Test
	fun `flow is answered by the fallback's flow`(): Unit = runBlocking {
		hold("stream:acme").use {
			assertThat(exports.stream("acme").toList()).containsExactly("cached acme", "stream")
		}
		assertThat(exports.stream("acme").toList()).containsExactly("acme 0", "acme 1")
	}

	@Test
	fun `failure of a suspend fallback is the caller's`() {
		hold("strict:acme").use {
			assertThatExceptionOfType(IllegalStateException::class.java)
				.isThrownBy { runBlocking { exports.strict("acme") } }
				.withMessage("no capacity for acme")
		}
	}

	@Test
	fun `suspend function's fallback must be a suspend function`() {
		assertThatExceptionOfType(InvalidExclusiveRequestException::class.java)
			.isThrownBy { parse("blockingFallback") }
			.withMessageContaining("fallback = \"notSuspending\" cannot answer for this method")
			.withMessageContaining("is not a suspend function, as the method is")
	}

	@Test
	fun `suspend fallback must return the function's declared type`() {
		assertThatExceptionOfType(InvalidExclusiveRequestException::class.java)
			.isThrownBy { parse("wrongReturn") }
			.withMessageContaining("returns java.lang.Integer, which is not assignable to the method's "
					+ "java.lang.String")
	}

	@Test
	fun `suspend fallback's parameters are the declared ones, without the continuation`() {
		assertThatExceptionOfType(InvalidExclusiveRequestException::class.java)
			.isThrownBy { parse("wrongParameter") }
			.withMessageContaining("takes int as parameter 1, which cannot receive the "
					+ "java.lang.String of the method")
			.withMessageContaining("declare a suspend function (java.lang.String) or (..., LockConflictException)")
	}

	private fun parse(name: String) {
		attributeSource.getAttribute(Misdeclared::class.java.declaredMethods.first { it.name == name },
				Misdeclared::class.java)
	}

	private fun hold(key: String): Lease {
		val attempt = locks.tryAcquire(key, Duration.ofSeconds(30))
		assertThat(attempt.isAcquired).isTrue()
		return attempt.lease()
	}

	open class Exports {

		val runs = AtomicInteger()

		val conflicts = CopyOnWriteArrayList<LockConflictException>()

		@ExclusiveRequest(name = "exports", key = ["#tenant"], fallback = "queued")
		open suspend fun export(tenant: String, rows: Int): String {
			runs.incrementAndGet()
			delay(1)
			return "exported $tenant ($rows rows)"
		}

		suspend fun queued(tenant: String, rows: Int, conflict: LockConflictException): String {
			delay(1)
			conflicts.add(conflict)
			return "queued $tenant ($rows rows)"
		}

		@ExclusiveRequest(name = "reports", key = ["#tenant"], fallback = "onItsWay")
		open suspend fun report(tenant: String): String {
			runs.incrementAndGet()
			return "report of $tenant"
		}

		private suspend fun onItsWay(tenant: String): String {
			delay(1)
			return "report of $tenant is on its way"
		}

		@ExclusiveRequest(name = "stream", key = ["#tenant"], fallback = "cached")
		open fun stream(tenant: String): Flow<String> = flow {
			emit("$tenant 0")
			emit("$tenant 1")
		}

		fun cached(tenant: String, conflict: LockConflictException): Flow<String> =
			flowOf("cached $tenant", conflict.lockName)

		@ExclusiveRequest(name = "strict", key = ["#tenant"], fallback = "refuse")
		open suspend fun strict(tenant: String): String = tenant

		suspend fun refuse(tenant: String): String {
			delay(1)
			throw IllegalStateException("no capacity for $tenant")
		}

	}

	open class Misdeclared {

		@ExclusiveRequest(fallback = "notSuspending")
		open suspend fun blockingFallback(tenant: String): String = tenant

		fun notSuspending(tenant: String): String = tenant

		@ExclusiveRequest(fallback = "intFallback")
		open suspend fun wrongReturn(tenant: String): String = tenant

		suspend fun intFallback(tenant: String): Int = tenant.length

		@ExclusiveRequest(fallback = "intParameter")
		open suspend fun wrongParameter(tenant: String): String = tenant

		suspend fun intParameter(tenant: Int): String = tenant.toString()

	}

}
