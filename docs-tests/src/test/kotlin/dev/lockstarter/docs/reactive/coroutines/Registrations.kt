package dev.lockstarter.docs.reactive.coroutines

import dev.lockstarter.annotation.ExclusiveRequest
import org.springframework.stereotype.Service

// tag::registrations[]
@Service
class Registrations(private val users: UserRepository, private val points: PointsClient) {

	@ExclusiveRequest(name = "user-registration", key = ["#userName"])
	suspend fun register(userName: String): User {
		check(!users.existsByName(userName)) { "taken" }
		val user = users.save(User(userName))
		points.grant(user.id, 100)
		return user
	}
}
// end::registrations[]
