package dev.lockstarter.sample.payment;

import javax.sql.DataSource;

import tools.jackson.databind.json.JsonMapper;

import dev.lockstarter.sample.SampleDatabase;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Chooses the {@link PaymentRepository} from {@code sample.store}, like the user
 * repository: in memory by default, in Redis with the {@code redis} profile, in the
 * database with the {@code jdbc} profile.
 */
@Configuration(proxyBeanMethods = false)
class PaymentRepositoryConfiguration {

	@Bean
	@ConditionalOnProperty(name = "sample.store", havingValue = "memory", matchIfMissing = true)
	InMemoryPaymentRepository inMemoryPaymentRepository() {
		return new InMemoryPaymentRepository();
	}

	@Bean
	@ConditionalOnProperty(name = "sample.store", havingValue = "redis")
	RedisPaymentRepository redisPaymentRepository(StringRedisTemplate redis, JsonMapper jsonMapper) {
		return new RedisPaymentRepository(redis, jsonMapper);
	}

	@Bean
	@ConditionalOnProperty(name = "sample.store", havingValue = "jdbc")
	JdbcPaymentRepository jdbcPaymentRepository(JdbcClient jdbc, DataSource dataSource) {
		JdbcPaymentRepository repository = new JdbcPaymentRepository(jdbc);
		repository.createTableIfNotExists(SampleDatabase.of(dataSource));
		return repository;
	}

}
