package dev.lockstarter.kotlinidempotency

import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.springframework.boot.WebApplicationType
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.boot.web.server.context.WebServerApplicationContext
import org.springframework.context.ConfigurableApplicationContext
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import java.util.UUID
import java.util.concurrent.CompletableFuture

/**
 * `@IdempotentRequest` on a Kotlin `suspend` handler in Spring WebFlux: one run per
 * idempotency key, replays of its response, the in-flight conflict and the reused key,
 * on the in-memory store.
 */
class SuspendIdempotentRequestTests {

	private val http: HttpClient = HttpClient.newHttpClient()

	@Test
	fun `same key runs the suspend handler once and replays its response`() {
		val key = UUID.randomUUID().toString()
		val first = order(key, """{"item":"book"}""")
		val replay = order(key, """{"item":"book"}""")
		assertThat(first.statusCode()).isEqualTo(201)
		assertThat(first.body()).isEqualTo("""{"item":"book","run":1}""")
		assertThat(replay.statusCode()).isEqualTo(201)
		assertThat(replay.body()).isEqualTo(first.body())
		assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true")
		assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty()
		assertThat(runsOf(key)).isEqualTo(1)
	}

	@Test
	fun `request with a key in flight gets the conflict problem and does not run`() {
		val key = UUID.randomUUID().toString()
		val slow = CompletableFuture.supplyAsync { order(key, """{"item":"slow"}""") }
		awaitRunning(key)
		val concurrent = order(key, """{"item":"slow"}""")
		assertThat(concurrent.statusCode()).isEqualTo(409)
		assertThat(concurrent.headers().firstValue("Content-Type")).hasValue("application/problem+json")
		assertThat(concurrent.headers().firstValue("Retry-After")).isPresent()
		assertThat(slow.get().statusCode()).isEqualTo(201)
		assertThat(runsOf(key)).isEqualTo(1)
	}

	@Test
	fun `same key with another body is refused with 422 and does not run`() {
		val key = UUID.randomUUID().toString()
		assertThat(order(key, """{"item":"pen"}""").statusCode()).isEqualTo(201)
		val reused = order(key, """{"item":"ink"}""")
		assertThat(reused.statusCode()).isEqualTo(422)
		assertThat(reused.headers().firstValue("Content-Type")).hasValue("application/problem+json")
		assertThat(runsOf(key)).isEqualTo(1)
	}

	private fun order(key: String, body: String): HttpResponse<String> = http.send(
			HttpRequest.newBuilder(base.resolve("/orders"))
				.timeout(Duration.ofSeconds(10))
				.header("Content-Type", "application/json")
				.header("Idempotency-Key", "\"$key\"")
				.POST(HttpRequest.BodyPublishers.ofString(body))
				.build(),
			HttpResponse.BodyHandlers.ofString())

	private fun runsOf(key: String): Int = app.getBean(Orders::class.java).runs(key)

	private fun awaitRunning(key: String) {
		await("the first request reaching its handler").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(10))
			.until { runsOf(key) > 0 }
	}

	companion object {

		private val app: ConfigurableApplicationContext = SpringApplicationBuilder(OrdersApplication::class.java)
			.web(WebApplicationType.REACTIVE)
			.run("--server.port=0", "--spring.main.banner-mode=off", "--lock.store=memory",
					"--management.health.redis.enabled=false")

		private val base: URI = URI.create("http://localhost:" +
				(app as WebServerApplicationContext).webServer!!.port)

		@JvmStatic
		@AfterAll
		fun close() = app.close()

	}

}
