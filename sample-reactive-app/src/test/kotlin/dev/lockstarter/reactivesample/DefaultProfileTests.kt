package dev.lockstarter.reactivesample

import dev.lockstarter.reactivesample.SampleClient.Companion.SAFE
import dev.lockstarter.reactivesample.SampleClient.Companion.UNSAFE
import dev.lockstarter.reactivesample.SampleClient.Companion.base
import dev.lockstarter.reactivesample.SampleClient.Companion.statusCounts
import dev.lockstarter.reactivesample.SampleClient.Companion.uniqueName
import dev.lockstarter.reactivesample.user.InMemoryUserRepository
import dev.lockstarter.reactivesample.user.UserRepository
import dev.lockstarter.store.LockStore
import dev.lockstarter.store.memory.InMemoryLockStore
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.springframework.boot.web.server.context.WebServerApplicationContext
import org.springframework.context.ConfigurableApplicationContext
import java.net.URI
import java.net.http.HttpResponse
import java.util.UUID

/**
 * The Kotlin sample with no infrastructure (the default profile: locks and users in
 * memory), driven over HTTP: the registration contract it shares with the Java sample.
 */
class DefaultProfileTests {

	private val client = SampleClient()

	private val base: URI = base(app)

	@Test
	fun runsOnNettyWithLocksAndUsersInMemory() {
		assertThat((app as WebServerApplicationContext).webServer!!.javaClass.simpleName).contains("Netty")
		assertThat(app.getBean(LockStore::class.java)).isInstanceOf(InMemoryLockStore::class.java)
		assertThat(app.getBean(UserRepository::class.java)).isInstanceOf(InMemoryUserRepository::class.java)
	}

	@Test
	fun registrationAnswers201WithTheUserAndItsLocation() {
		val userName = uniqueName()
		val response = client.register(base, SAFE, userName)
		assertThat(response.statusCode()).isEqualTo(201)
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json")
		val body = client.tree(response)
		assertThat(body.propertyNames()).containsExactlyInAnyOrder("userId", "userName", "points")
		val user = client.user(response)
		assertThat(user.userName).isEqualTo(userName)
		assertThat(user.points).isEqualTo(100)
		assertThat(UUID.fromString(user.userId).toString()).isEqualTo(user.userId)
		assertThat(response.headers().firstValue("Location")).hasValue("/api/users/${user.userId}")
		val located = client.get(base.resolve(response.headers().firstValue("Location").get()))
		assertThat(located.statusCode()).isEqualTo(200)
		assertThat(client.user(located)).isEqualTo(user)
		assertThat(client.findByName(base, userName)).containsExactly(user)
	}

	@Test
	fun nameIsStoredInNfcAndFoundInAnyForm() {
		val suffix = UUID.randomUUID().toString().substring(0, 8)
		val decomposed = "e\u0301mile-$suffix"
		val composed = "\u00e9mile-$suffix"
		val response = client.register(base, SAFE, decomposed)
		assertThat(response.statusCode()).isEqualTo(201)
		assertThat(client.user(response).userName).isEqualTo(composed)
		assertThat(client.findByName(base, decomposed)).hasSize(1)
		assertThat(client.findByName(base, composed)).hasSize(1)
		assertThat(client.register(base, SAFE, composed).statusCode()).isEqualTo(422)
	}

	@Test
	fun blankMissingOrInvalidNamesAreRejectedWith400AndNothingIsStored() {
		val bodies = listOf("{}", """{"userName": null}""", """{"userName": ""}""", """{"userName": " "}""",
			"""{"userName": "a b"}""", """{"userName": "-alice"}""", """{"userName": "alice<script>"}""",
			"""{"userName": "${"a".repeat(31)}"}""", """{"userName": "${"a".repeat(10_000)}"}""")
		for (path in listOf(SAFE, UNSAFE)) {
			for (body in bodies) {
				val response = client.post(base, path, body)
				assertThat(response.statusCode()).`as`("%s %s", path, body.take(40)).isEqualTo(400)
				assertProblem(response, 400, "urn:lockstarter:sample:problem:invalid-user-name")
				assertThat(response.body()).doesNotContain("aaaaaaaaaa")
			}
		}
		assertThat(client.findByName(base, "a b")).isEmpty()
		assertThat(client.findByName(base, "a".repeat(31))).isEmpty()
		assertThat(client.register(base, SAFE, "a".repeat(30)).statusCode()).isEqualTo(201)
	}

	@Test
	fun malformedBodyIsRejectedWith400Problem() {
		val response = client.post(base, SAFE, "not json")
		assertThat(response.statusCode()).isEqualTo(400)
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json")
	}

	@Test
	fun registrationOfARegisteredNameIsRejectedWith422ByBothEndpoints() {
		val userName = uniqueName()
		assertThat(client.register(base, SAFE, userName).statusCode()).isEqualTo(201)
		for (path in listOf(SAFE, UNSAFE)) {
			val response = client.register(base, path, userName)
			assertThat(response.statusCode()).`as`(path).isEqualTo(422)
			assertProblem(response, 422, "urn:lockstarter:sample:problem:user-already-registered")
			assertThat(client.tree(response).get("userName").asString()).isEqualTo(userName)
		}
		assertThat(client.findByName(base, userName)).hasSize(1)
	}

	@Test
	fun lookUpOfAnUnknownIdIsAnswered404Problem() {
		val response = client.get(base.resolve("/api/users/${UUID.randomUUID()}"))
		assertThat(response.statusCode()).isEqualTo(404)
		assertProblem(response, 404, "urn:lockstarter:sample:problem:user-not-found")
	}

	@Test
	fun lookUpByAnUnknownNameIsAnEmptyList() {
		assertThat(client.findByName(base, uniqueName())).isEmpty()
	}

	@Test
	fun simultaneousRegistrationsOfOneNameStoreExactlyOneUser() {
		val userName = uniqueName()
		val responses = client.sendTogether(10) { client.registration(base, SAFE, userName) }
		assertThat(statusCounts(responses)).isEqualTo(mapOf(201 to 1, 409 to 9))
		responses.filter { it.statusCode() == 409 }.forEach {
			assertProblem(it, 409, "urn:lockstarter:problem:lock-conflict")
			assertThat(it.headers().firstValue("Retry-After").map(String::toLong)).hasValueSatisfying { seconds ->
				assertThat(seconds).isPositive()
			}
		}
		assertThat(client.findByName(base, userName)).hasSize(1)
	}

	@Test
	fun simultaneousUnsafeRegistrationsOfOneNameStoreDuplicates() {
		val userName = uniqueName()
		val responses = client.sendTogether(10) { client.registration(base, UNSAFE, userName) }
		val statuses = statusCounts(responses)
		assertThat(statuses.keys).`as`("statuses %s", statuses).isSubsetOf(201, 422)
		assertThat(statuses[201]).`as`("201 responses in %s", statuses).isGreaterThan(1)
		assertThat(client.findByName(base, userName)).hasSize(statuses.getValue(201))
	}

	private fun assertProblem(response: HttpResponse<String>, status: Int, type: String) {
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json")
		val problem = client.tree(response)
		assertThat(problem.get("status").asInt()).isEqualTo(status)
		assertThat(problem.get("type").asString()).isEqualTo(type)
	}

	companion object {

		private lateinit var app: ConfigurableApplicationContext

		@JvmStatic
		@BeforeAll
		fun start() {
			// Long enough for simultaneous requests to overlap on a slow machine
			app = SampleInstances.kotlin("--sample.points-service.latency=500ms")
		}

		@JvmStatic
		@AfterAll
		fun stop() {
			if (::app.isInitialized) {
				app.close()
			}
		}

	}

}
