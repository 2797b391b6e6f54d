package dev.lockstarter.reactivesample

import dev.lockstarter.reactivesample.user.User
import org.springframework.context.ConfigurableApplicationContext
import tools.jackson.databind.JsonNode
import tools.jackson.module.kotlin.jacksonMapperBuilder
import tools.jackson.module.kotlin.readValue
import java.net.URI
import java.net.URLEncoder
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import java.util.UUID
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * An HTTP client for the samples' user endpoints, Kotlin or Java.
 */
class SampleClient {

	private val http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(TIMEOUT)
		.build()

	private val json = jacksonMapperBuilder().build()

	fun registration(base: URI, path: String, userName: String): HttpRequest =
		postJson(base, path, json.writeValueAsString(mapOf("userName" to userName)))

	fun postJson(base: URI, path: String, body: String): HttpRequest = HttpRequest.newBuilder(base.resolve(path))
		.header("Content-Type", "application/json")
		.timeout(TIMEOUT)
		.POST(HttpRequest.BodyPublishers.ofString(body))
		.build()

	fun register(base: URI, path: String, userName: String): HttpResponse<String> =
		send(registration(base, path, userName))

	fun post(base: URI, path: String, body: String): HttpResponse<String> = send(postJson(base, path, body))

	fun get(uri: URI): HttpResponse<String> = send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build())

	fun findByName(base: URI, userName: String): List<User> {
		val response = get(base.resolve("$SAFE?userName=${URLEncoder.encode(userName, Charsets.UTF_8)}"))
		check(response.statusCode() == 200) { "GET by name answered ${response.statusCode()}: ${response.body()}" }
		return json.readValue(response.body())
	}

	fun user(response: HttpResponse<String>): User = json.readValue(response.body())

	fun user(json: String): User = this.json.readValue(json)

	fun tree(response: HttpResponse<String>): JsonNode = json.readTree(response.body())

	/**
	 * Send requests from as many threads, released together once every thread is ready.
	 */
	fun sendTogether(count: Int, request: (Int) -> HttpRequest): List<HttpResponse<String>> {
		val requests = (0 until count).map(request)
		val executor = Executors.newFixedThreadPool(count)
		try {
			val ready = CountDownLatch(count)
			val start = CountDownLatch(1)
			val futures = requests.map {
				executor.submit<HttpResponse<String>> {
					ready.countDown()
					start.await()
					http.send(it, HttpResponse.BodyHandlers.ofString())
				}
			}
			check(ready.await(10, TimeUnit.SECONDS)) { "Request threads did not start" }
			start.countDown()
			return futures.map { it.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS) }
		}
		finally {
			executor.shutdownNow()
		}
	}

	private fun send(request: HttpRequest): HttpResponse<String> =
		http.send(request, HttpResponse.BodyHandlers.ofString())

	companion object {

		const val SAFE = "/api/users"

		const val UNSAFE = "/api/unsafe/users"

		private val TIMEOUT: Duration = Duration.ofSeconds(10)

		fun base(context: ConfigurableApplicationContext): URI =
			URI.create("http://127.0.0.1:" + context.environment.getRequiredProperty("local.server.port"))

		fun uniqueName(): String = "user-" + UUID.randomUUID().toString().substring(0, 8)

		fun statusCounts(responses: List<HttpResponse<String>>): Map<Int, Int> =
			responses.groupingBy { it.statusCode() }.eachCount()

	}

}
