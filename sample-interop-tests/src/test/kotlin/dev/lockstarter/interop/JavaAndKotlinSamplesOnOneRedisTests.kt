package dev.lockstarter.interop

import dev.lockstarter.reactivesample.SampleClient
import dev.lockstarter.reactivesample.SampleClient.Companion.SAFE
import dev.lockstarter.reactivesample.SampleClient.Companion.UNSAFE
import dev.lockstarter.reactivesample.SampleClient.Companion.base
import dev.lockstarter.reactivesample.SampleClient.Companion.statusCounts
import dev.lockstarter.reactivesample.SampleClient.Companion.uniqueName
import dev.lockstarter.reactivesample.user.User
import dev.lockstarter.store.LockStore
import dev.lockstarter.store.redis.RedisLockStore
import dev.lockstarter.test.redis.RedisServerExtension
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.web.server.context.WebServerApplicationContext
import org.springframework.context.ConfigurableApplicationContext
import java.util.concurrent.CompletableFuture
import dev.lockstarter.reactivesample.user.RedisUserRepository as KotlinRedisUserRepository
import dev.lockstarter.reactivesample.user.UserRepository as KotlinUserRepository
import dev.lockstarter.sample.user.RedisUserRepository as JavaRedisUserRepository
import dev.lockstarter.sample.user.UserRepository as JavaUserRepository

/**
 * One instance of the Java sample (Spring MVC, blocking) and one of the Kotlin sample
 * (WebFlux, a `suspend` function), both with the `redis` profile on one real Redis server:
 * they take the same lock for a user name and keep users under the same keys, so one name
 * is registered once whichever sample a request reaches.
 */
class JavaAndKotlinSamplesOnOneRedisTests {

	private val client = SampleClient()

	@Test
	fun bothKeepLocksAndUsersInRedis() {
		assertThat(java.getBean(LockStore::class.java)).isInstanceOf(RedisLockStore::class.java)
		assertThat(kotlin.getBean(LockStore::class.java)).isInstanceOf(RedisLockStore::class.java)
		assertThat(java.getBean(JavaUserRepository::class.java)).isInstanceOf(JavaRedisUserRepository::class.java)
		assertThat(kotlin.getBean(KotlinUserRepository::class.java))
			.isInstanceOf(KotlinRedisUserRepository::class.java)
		assertThat(serverOf(java)).contains("Tomcat")
		assertThat(serverOf(kotlin)).contains("Netty")
	}

	@Test
	fun twentySimultaneousRegistrationsSplitOverBothSamplesStoreOneUser() {
		val userName = uniqueName()
		val bases = listOf(base(java), base(kotlin))
		val responses = client.sendTogether(CONCURRENT_REQUESTS) {
			client.registration(bases[it % 2], SAFE, userName)
		}
		assertThat(statusCounts(responses)).isEqualTo(mapOf(201 to 1, 409 to CONCURRENT_REQUESTS - 1))
		responses.filter { it.statusCode() == 409 }.forEach {
			assertThat(it.headers().firstValue("Content-Type")).hasValue("application/problem+json")
			assertThat(it.headers().firstValue("Retry-After")).isPresent()
			assertThat(client.tree(it).get("type").asString()).isEqualTo("urn:lockstarter:problem:lock-conflict")
		}
		assertStoredOnce(userName, client.user(responses.single { it.statusCode() == 201 }))
	}

	@Test
	fun registrationInFlightOnEitherSampleMakesTheOtherAnswerConflict() {
		for ((holder, contender) in listOf(java to kotlin, kotlin to java)) {
			val userName = uniqueName()
			val inFlight = CompletableFuture.supplyAsync { client.register(base(holder), SAFE, userName) }
			awaitLock(userName)
			val conflict = client.register(base(contender), SAFE, userName)
			assertThat(conflict.statusCode()).isEqualTo(409)
			assertThat(conflict.headers().firstValue("Retry-After")).isPresent()
			assertThat(inFlight.get().statusCode()).isEqualTo(201)
			assertStoredOnce(userName, client.findByName(base(holder), userName).single())
		}
	}

	@Test
	fun usersRegisteredByEitherSampleAreSeenAndRefusedAgainByTheOther() {
		for ((registrar, reader) in listOf(kotlin to java, java to kotlin)) {
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

	@Test
	fun aNameInAnotherNormalizationFormIsTheSameUserForBoth() {
		val userName = "\u00e9-" + uniqueName()
		val decomposed = "e\u0301-" + userName.substring(2)
		assertThat(client.register(base(kotlin), SAFE, decomposed).statusCode()).isEqualTo(201)
		assertThat(client.register(base(java), SAFE, userName).statusCode()).isEqualTo(422)
		assertThat(client.findByName(base(java), decomposed)).hasSize(1)
	}

	private fun assertStoredOnce(userName: String, user: User) {
		assertThat(client.findByName(base(java), userName)).containsExactly(user)
		assertThat(client.findByName(base(kotlin), userName)).containsExactly(user)
		val server = redis.server()
		assertThat(server.command("LRANGE", KotlinRedisUserRepository.NAME_KEY_PREFIX + userName, "0", "-1"))
			.isEqualTo(user.userId)
		assertThat(client.user(server.command("GET", KotlinRedisUserRepository.USER_KEY_PREFIX + user.userId)!!))
			.isEqualTo(user)
	}

	private fun serverOf(instance: ConfigurableApplicationContext): String =
		(instance as WebServerApplicationContext).webServer!!.javaClass.simpleName

	private fun awaitLock(userName: String) {
		val lockKey = "lock:{user-registration:$userName}"
		val deadline = System.nanoTime() + 5_000_000_000L
		while (redis.server().command("EXISTS", lockKey) != "1") {
			assertThat(System.nanoTime()).`as`("lock %s taken in time", lockKey).isLessThan(deadline)
			Thread.sleep(5)
		}
	}

	companion object {

		private const val CONCURRENT_REQUESTS = 20

		/** Long enough for 20 simultaneous requests to overlap on a slow machine. */
		private const val POINTS_LATENCY = "--sample.points-service.latency=500ms"

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

		private lateinit var java: ConfigurableApplicationContext

		private lateinit var kotlin: ConfigurableApplicationContext

		@JvmStatic
		@BeforeAll
		fun start() {
			java = Samples.java(redis, POINTS_LATENCY)
			kotlin = Samples.kotlin(redis, POINTS_LATENCY)
			// One registration on each, so that the timed requests find initialized
			// handlers and open Redis connections
			val client = SampleClient()
			assertThat(listOf(java, kotlin).map { client.register(base(it), SAFE, uniqueName()).statusCode() })
				.containsOnly(201)
		}

		@JvmStatic
		@AfterAll
		fun stop() {
			if (::java.isInitialized) java.close()
			if (::kotlin.isInitialized) kotlin.close()
		}

	}

}
