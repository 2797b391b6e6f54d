package dev.lockstarter.sample.user;

import javax.sql.DataSource;

import tools.jackson.databind.json.JsonMapper;

import dev.lockstarter.sample.SampleDatabase;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Chooses the {@link UserRepository} from {@code sample.store}: in memory by default, in
 * Redis with the {@code redis} profile, in the database with the {@code jdbc} profile.
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

	@Bean
	@ConditionalOnProperty(name = "sample.store", havingValue = "jdbc")
	JdbcUserRepository jdbcUserRepository(JdbcClient jdbc, DataSource dataSource) {
		JdbcUserRepository repository = new JdbcUserRepository(jdbc);
		repository.createTableIfNotExists(SampleDatabase.of(dataSource));
		return repository;
	}

}
