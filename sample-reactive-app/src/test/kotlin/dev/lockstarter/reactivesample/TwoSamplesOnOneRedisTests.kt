package dev.lockstarter.reactivesample

import dev.lockstarter.reactivesample.SampleClient.Companion.SAFE
import dev.lockstarter.reactivesample.SampleClient.Companion.UNSAFE
import dev.lockstarter.reactivesample.SampleClient.Companion.base
import dev.lockstarter.reactivesample.SampleClient.Companion.statusCounts
import dev.lockstarter.reactivesample.SampleClient.Companion.uniqueName
import dev.lockstarter.reactivesample.user.RedisUserRepository
import dev.lockstarter.reactivesample.user.User
import dev.lockstarter.test.redis.RedisServerExtension
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.springframework.boot.web.server.context.WebServerApplicationContext
import org.springframework.context.ConfigurableApplicationContext
import java.net.http.HttpResponse
import java.time.Duration
import java.util.concurrent.CompletableFuture

/**
 * What two sample instances with the `redis` profile on one real Redis server must show,
 * whichever samples they are (two Kotlin ones here, a Java and a Kotlin one in
 * `sample-interop-tests`): one name is registered once whichever instance a request
 * reaches, and users are kept under the Java sample's keys.
 */
abstract class TwoSamplesOnOneRedisTests {

	protected val client = SampleClient()

	/** The Redis server both instances use. */
	protected abstract fun redis(): RedisServerExtension

	/** The first instance. */
	protected abstract fun first(): ConfigurableApplicationContext

	/** The second instance. */
	protected abstract fun second(): ConfigurableApplicationContext

	@Test
	fun twentySimultaneousRegistrationsSplitOverBothInstancesStoreOneUserAndGetConflicts() {
		val userName = uniqueName()
		val responses = registerTogether(SAFE, userName)
		assertThat(statusCounts(responses)).isEqualTo(mapOf(201 to 1, 409 to CONCURRENT_REQUESTS - 1))
		responses.filter { it.statusCode() == 409 }.forEach {
			assertThat(it.headers().firstValue("Content-Type")).hasValue("application/problem+json")
			assertThat(it.headers().firstValue("Retry-After").map(String::toLong)).hasValueSatisfying { seconds ->
				assertThat(seconds).isPositive()
			}
			val problem = client.tree(it)
			assertThat(problem.get("status").asInt()).isEqualTo(409)
			assertThat(problem.get("type").asString()).isEqualTo("urn:lockstarter:problem:lock-conflict")
		}
		assertStoredOnce(userName, client.user(responses.single { it.statusCode() == 201 }))
	}

	@Test
	fun registrationInFlightOnEitherInstanceMakesTheOtherAnswerConflictUnderTheJavaSampleLockKey() {
		for ((holder, contender) in listOf(first() to second(), second() to first())) {
			val userName = uniqueName()
			val inFlight = CompletableFuture.supplyAsync { client.register(base(holder), SAFE, userName) }
			awaitLock(userName)
			val conflict = client.register(base(contender), SAFE, userName)
			assertThat(conflict.statusCode()).isEqualTo(409)
			assertThat(conflict.headers().firstValue("Retry-After")).isPresent()
			assertThat(inFlight.get().statusCode()).isEqualTo(201)
			assertThat(redis().server().command("EXISTS", lockKey(userName))).isEqualTo("0")
			assertStoredOnce(userName, client.findByName(base(holder), userName).single())
		}
	}

	@Test
	fun usersRegisteredOnEitherInstanceAreSeenAndRefusedAgainByTheOther() {
		for ((registrar, reader) in listOf(first() to second(), second() to first())) {
			val userName = uniqueName()
			val response = client.register(base(registrar), SAFE, userName)
			assertThat(response.statusCode()).isEqualTo(201)
			val user = client.user(response)
			val located = client.get(base(reader).resolve(response.headers().firstValue("Location").get()))
			assertThat(located.statusCode()).isEqualTo(200)
			assertThat(client.user(located)).isEqualTo(user)
			for (path in listOf(SAFE, UNSAFE)) {
				val again = client.register(base(reader), path, userName)
				assertThat(again.statusCode()).`as`(path).isEqualTo(422)
				assertThat(client.tree(again).get("userName").asString()).isEqualTo(userName)
			}
			assertStoredOnce(userName, user)
		}
	}

	/**
	 * Send [CONCURRENT_REQUESTS] registrations of one name at once, alternately to each
	 * instance.
	 */
	protected fun registerTogether(path: String, userName: String): List<HttpResponse<String>> {
		val bases = listOf(base(first()), base(second()))
		return client.sendTogether(CONCURRENT_REQUESTS) { client.registration(bases[it % 2], path, userName) }
	}

	/**
	 * Assert that exactly one user is stored under a name, as both instances report it and
	 * as Redis holds it under the Java sample's keys: the id in the name's list and the JSON
	 * under the id.
	 */
	protected fun assertStoredOnce(userName: String, user: User) {
		assertThat(client.findByName(base(first()), userName)).containsExactly(user)
		assertThat(client.findByName(base(second()), userName)).containsExactly(user)
		val server = redis().server()
		assertThat(server.command("LLEN", RedisUserRepository.NAME_KEY_PREFIX + userName)).isEqualTo("1")
		assertThat(server.command("LINDEX", RedisUserRepository.NAME_KEY_PREFIX + userName, "0"))
			.isEqualTo(user.userId)
		assertThat(client.user(server.command("GET", RedisUserRepository.USER_KEY_PREFIX + user.userId)!!))
			.isEqualTo(user)
	}

	/** The name of the web server class an instance runs on. */
	protected fun serverOf(instance: ConfigurableApplicationContext): String =
		(instance as WebServerApplicationContext).webServer!!.javaClass.simpleName

	private fun awaitLock(userName: String) {
		await("lock of $userName taken in time").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(5))
			.until { redis().server().command("EXISTS", lockKey(userName)) == "1" }
	}

	private fun lockKey(userName: String) = "lock:{user-registration:$userName}"

	companion object {

		/** How many registrations are sent at once. */
		const val CONCURRENT_REQUESTS = 20

		/** Long enough for 20 simultaneous requests to overlap on a slow machine. */
		const val POINTS_LATENCY = "--sample.points-service.latency=500ms"

	}

}
