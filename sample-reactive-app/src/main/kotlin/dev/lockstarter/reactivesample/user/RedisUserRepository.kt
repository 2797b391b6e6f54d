package dev.lockstarter.reactivesample.user

import kotlinx.coroutines.reactor.awaitSingle
import kotlinx.coroutines.reactor.awaitSingleOrNull
import org.springframework.dao.QueryTimeoutException
import org.springframework.data.redis.core.ReactiveStringRedisTemplate
import reactor.core.publisher.Mono
import tools.jackson.databind.json.JsonMapper
import tools.jackson.module.kotlin.readValue
import java.time.Duration

/**
 * Users in Redis, under the Java sample's keys, so that both samples see the same users:
 * each user as JSON under `sample:users:{userId}`, and the ids of the users of a name, in
 * the order they were stored, in the list `sample:users-by-name:{userName}`. Every call
 * is non-blocking and fails with a [QueryTimeoutException] if Redis does not answer
 * within [timeout].
 */
class RedisUserRepository(
	private val redis: ReactiveStringRedisTemplate,
	private val jsonMapper: JsonMapper,
	private val timeout: Duration,
) : UserRepository {

	init {
		require(!timeout.isNegative && !timeout.isZero) { "'spring.data.redis.timeout' must be positive, was $timeout" }
	}

	override suspend fun save(user: User) {
		redis.opsForValue().set(USER_KEY_PREFIX + user.userId, jsonMapper.writeValueAsString(user)).awaitWithin()
		redis.opsForList().rightPush(NAME_KEY_PREFIX + user.userName, user.userId).awaitWithin()
	}

	override suspend fun findById(userId: String): User? =
		redis.opsForValue().get(USER_KEY_PREFIX + userId).awaitWithin()?.let(::read)

	override suspend fun findByName(userName: String): List<User> {
		val userIds = redis.opsForList().range(NAME_KEY_PREFIX + userName, 0, -1).collectList().awaitWithin()
		if (userIds.isNullOrEmpty()) {
			return emptyList()
		}
		val json = redis.opsForValue().multiGet(userIds.map { USER_KEY_PREFIX + it }).awaitWithin()
		return json.orEmpty().filterNotNull().map(::read)
	}

	override suspend fun existsByName(userName: String): Boolean =
		redis.hasKey(NAME_KEY_PREFIX + userName).awaitWithin() == true

	private fun read(json: String): User = jsonMapper.readValue(json)

	private suspend fun <T : Any> Mono<T>.awaitWithin(): T? =
		timeout(timeout, Mono.error { QueryTimeoutException("Redis did not answer within $timeout") })
			.awaitSingleOrNull()

	companion object {

		/** Prefix of the key of a user's JSON, followed by its id. */
		const val USER_KEY_PREFIX = "sample:users:"

		/** Prefix of the key of the list of a name's user ids, followed by the name. */
		const val NAME_KEY_PREFIX = "sample:users-by-name:"

	}

}
