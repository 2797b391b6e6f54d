package dev.lockstarter.reactivesample

import dev.lockstarter.test.redis.RedisServerExtension
import org.springframework.boot.WebApplicationType
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.context.ConfigurableApplicationContext

/**
 * Starts the Kotlin sample in this JVM on a free port, with command line arguments as when
 * starting its jar.
 */
object SampleInstances {

	/**
	 * Start the Kotlin sample on Reactor Netty.
	 */
	fun kotlin(vararg args: String): ConfigurableApplicationContext =
		SpringApplicationBuilder(ReactiveSampleApplication::class.java).web(WebApplicationType.REACTIVE)
			.run("--server.port=0", "--spring.main.banner-mode=off", *args)

	/**
	 * Start the Kotlin sample with the `redis` profile on a test Redis server.
	 */
	fun kotlinOnRedis(redis: RedisServerExtension, vararg args: String): ConfigurableApplicationContext =
		kotlin("--spring.profiles.active=redis", "--spring.data.redis.host=" + redis.host(),
			"--spring.data.redis.port=" + redis.port(), *args)

}
