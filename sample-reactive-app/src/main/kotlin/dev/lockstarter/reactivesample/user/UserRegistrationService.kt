package dev.lockstarter.reactivesample.user

import dev.lockstarter.annotation.ExclusiveRequest
import dev.lockstarter.reactivesample.points.PointsService
import org.springframework.stereotype.Service
import java.util.UUID

/**
 * Registers users, with or without the lock on their name.
 */
@Service
class UserRegistrationService(private val users: UserRepository, private val points: PointsService) {

	/**
	 * Throw [UserAlreadyRegisteredException] if a name is taken, without taking a lock.
	 * This rejects a registration of a known name early; it does not make the name safe to
	 * register, since another registration may store the name right after this check.
	 */
	suspend fun checkNameIsFree(userName: String) {
		if (users.existsByName(userName)) {
			throw UserAlreadyRegisteredException(userName)
		}
	}

	/**
	 * Register a user while holding the lock on its name; a concurrent registration of the
	 * same name, on this instance or another one (Kotlin or Java) sharing the lock store,
	 * fails with a `LockConflictException`. The lock is the Java sample's: same name, same
	 * key. The name is checked again inside the lock: a request that checked it before an
	 * earlier registration stored its user, and locked after that one released, must not
	 * store a second user.
	 */
	@ExclusiveRequest(name = "user-registration", key = ["#userName"])
	suspend fun registerExclusively(userName: String): User = register(userName)

	/**
	 * Register a user without a lock: concurrent registrations of one name can all succeed.
	 */
	suspend fun register(userName: String): User {
		require(userName.isNotBlank()) { "'userName' must not be empty" }
		checkNameIsFree(userName)
		val userId = UUID.randomUUID().toString()
		val balance = points.addPoints(userId, BONUS_POINTS)
		val user = User(userId, userName, balance)
		users.save(user)
		return user
	}

	/**
	 * Return the user with an id, or throw [UserNotFoundException].
	 */
	suspend fun findById(userId: String): User = users.findById(userId) ?: throw UserNotFoundException(userId)

	/**
	 * Return every user registered under a name, in the order they were stored: more than
	 * one after duplicate registrations.
	 */
	suspend fun findByName(userName: String): List<User> = users.findByName(userName)

	companion object {

		/** Points granted to every new user. */
		const val BONUS_POINTS = 100

	}

}
