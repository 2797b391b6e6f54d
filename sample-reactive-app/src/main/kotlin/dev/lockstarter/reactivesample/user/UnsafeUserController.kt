package dev.lockstarter.reactivesample.user

import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.RestController

/**
 * The registration of [UserController] without the lock, to show what goes wrong:
 * simultaneous registrations of one name all pass the check and store duplicates.
 */
@RestController
@RequestMapping("/api/unsafe/users")
class UnsafeUserController(private val registrations: UserRegistrationService) {

	/**
	 * Register a user without a lock: `201` with the user and its `Location`.
	 */
	@PostMapping
	suspend fun register(@RequestBody request: RegistrationRequest): ResponseEntity<User> =
		created(registrations.register(UserNames.normalize(request.userName)))

}
