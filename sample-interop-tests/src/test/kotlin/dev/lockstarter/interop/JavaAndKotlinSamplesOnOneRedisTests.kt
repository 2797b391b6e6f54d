package dev.lockstarter.interop

import dev.lockstarter.reactivesample.SampleClient
import dev.lockstarter.reactivesample.SampleClient.Companion.SAFE
import dev.lockstarter.reactivesample.SampleClient.Companion.base
import dev.lockstarter.reactivesample.SampleClient.Companion.uniqueName
import dev.lockstarter.reactivesample.TwoSamplesOnOneRedisTests
import dev.lockstarter.reactivesample.TwoSamplesOnOneRedisTests.Companion.POINTS_LATENCY
import dev.lockstarter.store.LockStore
import dev.lockstarter.store.redis.RedisLockStore
import dev.lockstarter.test.redis.RedisServerExtension
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.context.ConfigurableApplicationContext
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
class JavaAndKotlinSamplesOnOneRedisTests : TwoSamplesOnOneRedisTests() {

	override fun redis() = redis

	override fun first() = java

	override fun second() = kotlin

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
	fun aNameInAnotherNormalizationFormIsTheSameUserForBoth() {
		val userName = "\u00e9-" + uniqueName()
		val decomposed = "e\u0301-" + userName.substring(2)
		assertThat(client.register(base(kotlin), SAFE, decomposed).statusCode()).isEqualTo(201)
		assertThat(client.register(base(java), SAFE, userName).statusCode()).isEqualTo(422)
		assertThat(client.findByName(base(java), decomposed)).hasSize(1)
	}

	companion object {

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
