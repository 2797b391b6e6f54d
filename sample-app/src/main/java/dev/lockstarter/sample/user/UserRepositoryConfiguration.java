package dev.lockstarter.sample.user;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Chooses the {@link UserRepository} from {@code sample.store}: in memory by default, in
 * Redis with the {@code redis} profile.
 */
@Configuration(proxyBeanMethods = false)
class UserRepositoryConfiguration {

	@Bean
	@ConditionalOnProperty(name = "sample.store", havingValue = "memory", matchIfMissing = true)
	InMemoryUserRepository inMemoryUserRepository() {
		return new InMemoryUserRepository();
	}

	@Bean
	@ConditionalOnProperty(name = "sample.store", havingValue = "redis")
	RedisUserRepository redisUserRepository(StringRedisTemplate redis, JsonMapper jsonMapper) {
		return new RedisUserRepository(redis, jsonMapper);
	}

}
