package dev.lockstarter.reactivesample

import dev.lockstarter.sample.SampleApplication
import dev.lockstarter.test.redis.RedisServerExtension
import org.springframework.boot.WebApplicationType
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.context.ConfigurableApplicationContext
import java.io.File

/**
 * Starts the Kotlin sample and the Java sample in this JVM, as from their jars' command
 * lines. The test class path holds both, with Spring MVC and WebFlux, so each is given its
 * web application type; it also holds JDBC (for the Java sample's `jdbc` profile), which
 * neither uses here.
 */
object SampleInstances {

	private const val NO_DATA_SOURCE =
		"--spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"

	/**
	 * Start the Kotlin sample on Reactor Netty, on a free port.
	 */
	fun kotlin(vararg args: String): ConfigurableApplicationContext =
		SpringApplicationBuilder(ReactiveSampleApplication::class.java).web(WebApplicationType.REACTIVE)
			.run("--server.port=0", "--spring.main.banner-mode=off", NO_DATA_SOURCE, *args)

	/**
	 * Start the Kotlin sample with the `redis` profile on a test Redis server.
	 */
	fun kotlinOnRedis(redis: RedisServerExtension, vararg args: String): ConfigurableApplicationContext =
		kotlin("--spring.profiles.active=redis", *redisArgs(redis), *args)

	/**
	 * Start the Java sample on Tomcat with the `redis` profile on a test Redis server. Its
	 * `application.yml` has the same name as the Kotlin sample's, which comes first on the
	 * class path: the Java sample is pointed at its own.
	 */
	fun javaOnRedis(redis: RedisServerExtension, vararg args: String): ConfigurableApplicationContext =
		SpringApplicationBuilder(SampleApplication::class.java).web(WebApplicationType.SERVLET)
			.run("--server.port=0", "--spring.main.banner-mode=off", "--spring.config.location=" + javaConfigLocation(),
				"--spring.profiles.active=redis", *redisArgs(redis), *args)

	private fun redisArgs(redis: RedisServerExtension) =
		arrayOf("--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port())

	private fun javaConfigLocation(): String {
		val location = SampleApplication::class.java.protectionDomain.codeSource.location
		val file = File(location.toURI())
		return if (file.isDirectory) location.toString().removeSuffix("/") + "/" else "jar:$location!/"
	}

}
