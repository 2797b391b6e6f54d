package dev.lockstarter.reactivesample.user

import java.util.concurrent.ConcurrentHashMap

/**
 * Users in this process's memory: lost on restart, not shared between instances.
 */
class InMemoryUserRepository : UserRepository {

	private val usersById = ConcurrentHashMap<String, User>()

	private val usersByName = ConcurrentHashMap<String, List<User>>()

	override suspend fun save(user: User) {
		usersById[user.userId] = user
		usersByName.merge(user.userName, listOf(user)) { stored, added -> stored + added }
	}

	override suspend fun findById(userId: String): User? = usersById[userId]

	override suspend fun findByName(userName: String): List<User> = usersByName[userName].orEmpty()

	override suspend fun existsByName(userName: String): Boolean = usersByName.containsKey(userName)

}
