package dev.lockstarter.interop

import dev.lockstarter.reactivesample.ReactiveSampleApplication
import dev.lockstarter.sample.SampleApplication
import dev.lockstarter.test.redis.RedisServerExtension
import org.springframework.boot.WebApplicationType
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.context.ConfigurableApplicationContext
import java.io.File

/**
 * Starts the Java sample and the Kotlin sample in this JVM with the `redis` profile on a
 * test Redis server, on free ports, with command line arguments as when starting their
 * jars. The class path holds both, so each gets its web application type (Spring MVC on
 * Tomcat, WebFlux on Reactor Netty) and its own `application.yml` (both have one). Both
 * have the JDBC classes that the Java sample's `jdbc` profile needs; neither uses them here.
 */
object Samples {

	/**
	 * Start the Java sample.
	 */
	fun java(redis: RedisServerExtension, vararg args: String): ConfigurableApplicationContext =
		start(SampleApplication::class.java, WebApplicationType.SERVLET, redis, args)

	/**
	 * Start the Kotlin sample.
	 */
	fun kotlin(redis: RedisServerExtension, vararg args: String): ConfigurableApplicationContext =
		start(ReactiveSampleApplication::class.java, WebApplicationType.REACTIVE, redis, args,
			"--spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")

	private fun start(application: Class<*>, type: WebApplicationType, redis: RedisServerExtension,
			args: Array<out String>, vararg extraArgs: String): ConfigurableApplicationContext =
		SpringApplicationBuilder(application).web(type)
			.run("--server.port=0", "--spring.main.banner-mode=off",
				"--spring.config.location=" + configLocation(application), "--spring.profiles.active=redis",
				"--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(), *extraArgs,
				*args)

	/**
	 * Return the root of the jar or the directory that holds an application's class, where
	 * its `application.yml` is.
	 */
	private fun configLocation(application: Class<*>): String {
		val location = application.protectionDomain.codeSource.location
		return if (File(location.toURI()).isDirectory) location.toString().removeSuffix("/") + "/"
		else "jar:$location!/"
	}

}
