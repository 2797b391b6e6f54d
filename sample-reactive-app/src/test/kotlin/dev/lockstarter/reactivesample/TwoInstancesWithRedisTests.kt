package dev.lockstarter.reactivesample

import dev.lockstarter.reactivesample.SampleClient.Companion.SAFE
import dev.lockstarter.reactivesample.SampleClient.Companion.UNSAFE
import dev.lockstarter.reactivesample.SampleClient.Companion.base
import dev.lockstarter.reactivesample.SampleClient.Companion.statusCounts
import dev.lockstarter.reactivesample.SampleClient.Companion.uniqueName
import dev.lockstarter.reactivesample.user.RedisUserRepository
import dev.lockstarter.reactivesample.user.User
import dev.lockstarter.reactivesample.user.UserRepository
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
import java.net.URI
import java.net.http.HttpResponse
import java.util.concurrent.CompletableFuture

/**
 * Two instances of the Kotlin sample with the `redis` profile on one real Redis server,
 * driven over HTTP: whichever instance a registration reaches, one name is registered once,
 * and users are stored under the Java sample's keys.
 */
class TwoInstancesWithRedisTests {

	private val client = SampleClient()

	@Test
	fun everyInstanceKeepsLocksAndUsersInRedis() {
		for (instance in listOf(kotlinA, kotlinB)) {
			assertThat(instance.getBean(LockStore::class.java)).isInstanceOf(RedisLockStore::class.java)
			assertThat(instance.getBean(UserRepository::class.java)).isInstanceOf(RedisUserRepository::class.java)
			assertThat(serverOf(instance)).contains("Netty")
		}
	}

	@Test
	fun twentySimultaneousRegistrationsOverTwoKotlinInstancesStoreOneUserAndGetConflicts() {
		val userName = uniqueName()
		val responses = registerTogether(listOf(kotlinA, kotlinB), SAFE, userName)
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
	fun registrationInFlightOnOneInstanceMakesTheOtherAnswerConflictUnderTheJavaSampleLockKey() {
		val userName = uniqueName()
		val inFlight = CompletableFuture.supplyAsync { client.register(base(kotlinA), SAFE, userName) }
		awaitLock(userName)
		val conflict = client.register(base(kotlinB), SAFE, userName)
		assertThat(conflict.statusCode()).isEqualTo(409)
		assertThat(conflict.headers().firstValue("Retry-After")).isPresent()
		assertThat(inFlight.get().statusCode()).isEqualTo(201)
		assertThat(redis.server().command("EXISTS", "lock:{user-registration:$userName}")).isEqualTo("0")
		assertThat(client.register(base(kotlinB), SAFE, userName).statusCode()).isEqualTo(422)
	}

	@Test
	fun usersRegisteredOnOneInstanceAreSeenByTheOther() {
		for ((registrar, reader) in listOf(kotlinA to kotlinB, kotlinB to kotlinA)) {
			val userName = uniqueName()
			val response = client.register(base(registrar), SAFE, userName)
			assertThat(response.statusCode()).isEqualTo(201)
			val user = client.user(response)
			val located = client.get(base(reader).resolve(response.headers().firstValue("Location").get()))
			assertThat(located.statusCode()).isEqualTo(200)
			assertThat(client.user(located)).isEqualTo(user)
			assertThat(client.findByName(base(reader), userName)).containsExactly(user)
			for (path in listOf(SAFE, UNSAFE)) {
				val again = client.register(base(reader), path, userName)
				assertThat(again.statusCode()).`as`(path).isEqualTo(422)
				assertThat(client.tree(again).get("userName").asString()).isEqualTo(userName)
			}
			assertStoredOnce(userName, user)
		}
	}

	@Test
	fun simultaneousUnsafeRegistrationsOverTwoKotlinInstancesStoreDuplicates() {
		val userName = uniqueName()
		val responses = registerTogether(listOf(kotlinA, kotlinB), UNSAFE, userName)
		val statuses = statusCounts(responses)
		assertThat(statuses.keys).`as`("statuses %s", statuses).isSubsetOf(201, 422)
		assertThat(statuses[201]).`as`("201 responses in %s", statuses).isGreaterThan(1)
		assertThat(client.findByName(base(kotlinB), userName)).hasSize(statuses.getValue(201))
		assertThat(redis.server().command("LLEN", RedisUserRepository.NAME_KEY_PREFIX + userName))
			.isEqualTo(statuses.getValue(201).toString())
	}

	private fun registerTogether(instances: List<ConfigurableApplicationContext>, path: String,
			userName: String): List<HttpResponse<String>> {
		val bases = instances.map(SampleClient::base)
		return client.sendTogether(CONCURRENT_REQUESTS) { client.registration(bases[it % bases.size], path, userName) }
	}

	/**
	 * Assert that exactly one user is stored under a name, as the instances report it and
	 * as Redis holds it under the Java sample's keys: the id in the name's list and the JSON
	 * under the id.
	 */
	private fun assertStoredOnce(userName: String, user: User) {
		for (instance in listOf(kotlinA, kotlinB)) {
			assertThat(client.findByName(base(instance), userName)).containsExactly(user)
		}
		val server = redis.server()
		assertThat(server.command("LLEN", RedisUserRepository.NAME_KEY_PREFIX + userName)).isEqualTo("1")
		assertThat(server.command("LINDEX", RedisUserRepository.NAME_KEY_PREFIX + userName, "0"))
			.isEqualTo(user.userId)
		assertThat(client.user(server.command("GET", RedisUserRepository.USER_KEY_PREFIX + user.userId)!!))
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

		private lateinit var kotlinA: ConfigurableApplicationContext

		private lateinit var kotlinB: ConfigurableApplicationContext

		@JvmStatic
		@BeforeAll
		fun start() {
			kotlinA = SampleInstances.kotlinOnRedis(redis, POINTS_LATENCY)
			kotlinB = SampleInstances.kotlinOnRedis(redis, POINTS_LATENCY)
			warmUp()
		}

		@JvmStatic
		@AfterAll
		fun stop() {
			if (::kotlinA.isInitialized) kotlinA.close()
			if (::kotlinB.isInitialized) kotlinB.close()
		}

		/**
		 * Serve one registration of each kind on each instance, so that the timed requests
		 * of the tests find initialized handlers and open Redis connections.
		 */
		private fun warmUp() {
			val client = SampleClient()
			val statuses = listOf(kotlinA, kotlinB)
				.flatMap { instance -> listOf(SAFE, UNSAFE).map { base(instance) to it } }
				.map { (base: URI, path) -> CompletableFuture.supplyAsync { client.register(base, path, uniqueName()) } }
				.map { it.get().statusCode() }
			assertThat(statuses).containsOnly(201)
		}

	}

}
