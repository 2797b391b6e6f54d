package dev.lockstarter.docs.convention

import dev.lockstarter.annotation.ExclusiveRequest

/**
 * The Kotlin example of docs-tests/README.md: Kotlin sources compile against the Java ones.
 */
internal class ReactiveRegistrationService(private val users: UserRepository) {

	// tag::register-user-suspend[]
	@ExclusiveRequest(key = ["#userName"])
	suspend fun register(userName: String): User =
		users.findByName(userName).orElseGet { users.save(User(userName)) }
	// end::register-user-suspend[]

}
