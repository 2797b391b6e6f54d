package dev.lockstarter.reactivesample.user

import org.springframework.beans.factory.annotation.Value
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.data.redis.core.ReactiveStringRedisTemplate
import tools.jackson.databind.json.JsonMapper
import java.time.Duration

/**
 * The user repository that `sample.store` names.
 */
@Configuration(proxyBeanMethods = false)
class UserRepositoryConfiguration {

	/**
	 * Users in memory, by default.
	 */
	@Bean
	@ConditionalOnProperty(name = ["sample.store"], havingValue = "memory", matchIfMissing = true)
	fun inMemoryUserRepository(): InMemoryUserRepository = InMemoryUserRepository()

	/**
	 * Users in Redis, with the `redis` profile; each call waits at most
	 * `spring.data.redis.timeout` (2 seconds if unset).
	 */
	@Bean
	@ConditionalOnProperty(name = ["sample.store"], havingValue = "redis")
	fun redisUserRepository(
		redis: ReactiveStringRedisTemplate,
		jsonMapper: JsonMapper,
		@Value("\${spring.data.redis.timeout:2s}") timeout: Duration,
	): RedisUserRepository = RedisUserRepository(redis, jsonMapper, timeout)

}
