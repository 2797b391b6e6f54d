package dev.lockstarter.sample.payment;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Chooses the {@link PaymentRepository} from {@code sample.store}, like the user
 * repository.
 */
@Configuration(proxyBeanMethods = false)
class PaymentRepositoryConfiguration {

	@Bean
	// In memory also with sample.store=jdbc, which keeps only the users in the database
	@ConditionalOnExpression("!'redis'.equalsIgnoreCase('${sample.store:memory}')")
	InMemoryPaymentRepository inMemoryPaymentRepository() {
		return new InMemoryPaymentRepository();
	}

	@Bean
	@ConditionalOnProperty(name = "sample.store", havingValue = "redis")
	RedisPaymentRepository redisPaymentRepository(StringRedisTemplate redis, JsonMapper jsonMapper) {
		return new RedisPaymentRepository(redis, jsonMapper);
	}

}
