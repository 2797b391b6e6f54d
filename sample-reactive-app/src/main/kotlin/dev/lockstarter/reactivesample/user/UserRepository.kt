package dev.lockstarter.reactivesample.user

/**
 * Where users are stored. Every function suspends instead of blocking a thread.
 */
interface UserRepository {

	/**
	 * Store a user, and add it to the users of its name.
	 */
	suspend fun save(user: User)

	/**
	 * Return the user with an id, or `null` if none has it.
	 */
	suspend fun findById(userId: String): User?

	/**
	 * Return every user stored under a name, in the order they were stored.
	 */
	suspend fun findByName(userName: String): List<User>

	/**
	 * Return whether at least one user is stored under a name.
	 */
	suspend fun existsByName(userName: String): Boolean

}
