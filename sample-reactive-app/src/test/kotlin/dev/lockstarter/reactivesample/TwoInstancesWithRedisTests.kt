package dev.lockstarter.reactivesample

import dev.lockstarter.reactivesample.SampleClient.Companion.SAFE
import dev.lockstarter.reactivesample.SampleClient.Companion.UNSAFE
import dev.lockstarter.reactivesample.SampleClient.Companion.base
import dev.lockstarter.reactivesample.SampleClient.Companion.statusCounts
import dev.lockstarter.reactivesample.SampleClient.Companion.uniqueName
import dev.lockstarter.reactivesample.TwoSamplesOnOneRedisTests.Companion.POINTS_LATENCY
import dev.lockstarter.reactivesample.user.RedisUserRepository
import dev.lockstarter.reactivesample.user.UserRepository
import dev.lockstarter.store.LockStore
import dev.lockstarter.store.redis.RedisLockStore
import dev.lockstarter.test.redis.RedisServerExtension
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.context.ConfigurableApplicationContext
import java.net.URI
import java.util.concurrent.CompletableFuture

/**
 * Two instances of the Kotlin sample with the `redis` profile on one real Redis server,
 * driven over HTTP: whichever instance a registration reaches, one name is registered once,
 * and users are stored under the Java sample's keys.
 */
class TwoInstancesWithRedisTests : TwoSamplesOnOneRedisTests() {

	override fun redis() = redis

	override fun first() = kotlinA

	override fun second() = kotlinB

	@Test
	fun everyInstanceKeepsLocksAndUsersInRedis() {
		for (instance in listOf(kotlinA, kotlinB)) {
			assertThat(instance.getBean(LockStore::class.java)).isInstanceOf(RedisLockStore::class.java)
			assertThat(instance.getBean(UserRepository::class.java)).isInstanceOf(RedisUserRepository::class.java)
			assertThat(serverOf(instance)).contains("Netty")
		}
	}

	@Test
	fun simultaneousUnsafeRegistrationsOverTwoKotlinInstancesStoreDuplicates() {
		val userName = uniqueName()
		val responses = registerTogether(UNSAFE, userName)
		val statuses = statusCounts(responses)
		assertThat(statuses.keys).`as`("statuses %s", statuses).isSubsetOf(201, 422)
		assertThat(statuses[201]).`as`("201 responses in %s", statuses).isGreaterThan(1)
		assertThat(client.findByName(base(kotlinB), userName)).hasSize(statuses.getValue(201))
		assertThat(redis.server().command("LLEN", RedisUserRepository.NAME_KEY_PREFIX + userName))
			.isEqualTo(statuses.getValue(201).toString())
	}

	companion object {

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
