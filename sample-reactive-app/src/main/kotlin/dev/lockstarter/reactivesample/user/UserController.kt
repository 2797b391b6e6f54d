package dev.lockstarter.reactivesample.user

import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.RequestParam
import org.springframework.web.bind.annotation.RestController
import org.springframework.web.util.UriComponentsBuilder

/**
 * User registration under the lock of the user name, and look-ups.
 */
@RestController
@RequestMapping("/api/users")
class UserController(private val registrations: UserRegistrationService) {

	/**
	 * Register a user: `201` with the user and its `Location`. A name that is already
	 * registered is rejected (`422`) before any lock is taken; a registration of a name
	 * whose registration is in flight gets the lock conflict problem.
	 */
	@PostMapping
	suspend fun register(@RequestBody request: RegistrationRequest): ResponseEntity<User> {
		val userName = UserNames.normalize(request.userName)
		registrations.checkNameIsFree(userName)
		return created(registrations.registerExclusively(userName))
	}

	/**
	 * Return every user registered under a name, in any Unicode normalization form:
	 * several if duplicates were registered.
	 */
	@GetMapping
	suspend fun findByName(@RequestParam userName: String): List<User> =
		registrations.findByName(UserNames.lookupForm(userName))

	/**
	 * Return the user with an id, or a `404` problem.
	 */
	@GetMapping("/{userId}")
	suspend fun findById(@PathVariable userId: String): User = registrations.findById(userId)

}

/**
 * The `201 Created` response of a registration, with the user's `Location`.
 */
internal fun created(user: User): ResponseEntity<User> =
	ResponseEntity.created(UriComponentsBuilder.fromPath("/api/users/{userId}").buildAndExpand(user.userId).toUri())
		.body(user)
