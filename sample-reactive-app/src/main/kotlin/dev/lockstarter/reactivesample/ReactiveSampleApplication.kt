package dev.lockstarter.reactivesample

import org.springframework.boot.WebApplicationType
import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.context.properties.EnableConfigurationProperties
import org.springframework.boot.runApplication

/**
 * The Kotlin sample: user registration on Spring WebFlux with coroutines, guarded by
 * `@ExclusiveRequest` on a `suspend` function. It offers the same HTTP contract as the
 * Java MVC sample and, with the `redis` profile, shares its locks and users with it.
 */
@SpringBootApplication
@EnableConfigurationProperties(SampleProperties::class)
class ReactiveSampleApplication

/**
 * Start the application on Reactor Netty.
 */
fun main(args: Array<String>) {
	runApplication<ReactiveSampleApplication>(*args) {
		setWebApplicationType(WebApplicationType.REACTIVE)
	}
}
