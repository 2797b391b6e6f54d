package dev.lockstarter.docs.sampleapp

import dev.lockstarter.annotation.ExclusiveRequest
import org.springframework.stereotype.Service

/**
 * A registration as the Kotlin sample writes it: a `suspend` function under the Java
 * sample's lock.
 */
@Service
class ReactiveRegistrationService(private val users: ReactiveUsers) {

	// tag::suspend-registration[]
	@ExclusiveRequest(name = "user-registration", key = ["#userName"])
	suspend fun registerExclusively(userName: String): User = register(userName)
	// end::suspend-registration[]

	suspend fun register(userName: String): User = users.save(User(userName))

}

/** A registered user. */
data class User(val userName: String)

/** Where users are kept. */
interface ReactiveUsers {

	suspend fun save(user: User): User

}
